import type { AddressJson } from '../../db/schema.ts';
/**
 * Masking of buyers' personal data (billing details, shipping contact details, addresses) for
 * callers without the scope `buyers.billing-details.read`. Pure functions, no I/O: every module
 * that returns buyer data (buyers, shipping details, transactions, payouts, ...) masks through
 * these, so a value is masked the same way wherever it appears.
 *
 * A masked value stays recognisable to someone who knows the buyer ("J***", "j***@e***.com",
 * "+***42") but is useless to anyone else: at most one leading character of a name or line, the
 * last two digits of a phone number or tax id, the start of a postal code. Masks have a fixed
 * length, so they do not reveal the length of the value either. Country and subdivision code
 * (`state_code`) are kept: they are regions, not people, and support needs them.
 */

/** The scope that reveals personal data in full (also granted by `*.read`). */
export const PII_SCOPE = 'buyers.billing-details.read';

const STARS = '***';

type Text = string | null | undefined;

/** Keeps null and undefined as they are: an absent field stays absent, a null stays null. */
function keep<T extends Text>(value: T, mask: (text: string) => string): T {
  return (typeof value === 'string' ? mask(value) : value) as T;
}

/** The first character (a whole code point, never half a surrogate pair). */
function first(text: string): string {
  return Array.from(text)[0] ?? '';
}

/** Names, address lines, city: first character and `***` ("Jane" → "J***"). */
export function maskText<T extends Text>(value: T): T {
  return keep(value, (text) => `${first(text)}${STARS}`);
}

/**
 * E-mail: first character of the local part and of the domain, top-level domain kept
 * ("jane.doe@example.co.uk" → "j***@e***.uk"). Without an `@`, as a name.
 */
export function maskEmail<T extends Text>(value: T): T {
  return keep(value, (text) => {
    const at = text.lastIndexOf('@');
    if (at < 0) return `${first(text)}${STARS}`;
    const local = text.slice(0, at);
    const domain = text.slice(at + 1);
    const dot = domain.lastIndexOf('.');
    const tld = dot > 0 ? domain.slice(dot) : '';
    return `${first(local)}${STARS}@${first(domain)}${STARS}${tld}`;
  });
}

/** Phone: the leading `+` and the last two digits ("+447700900123" → "+***23"). */
export function maskPhone<T extends Text>(value: T): T {
  return keep(value, (text) => {
    const digits = text.replace(/\D/g, '');
    const tail = digits.length > 4 ? digits.slice(-2) : '';
    return `${text.startsWith('+') ? '+' : ''}${STARS}${tail}`;
  });
}

/** Postal code: the first two characters of a code of five or more, else the first ("94107" → "94***"). */
export function maskPostalCode<T extends Text>(value: T): T {
  return keep(value, (text) => {
    const chars = Array.from(text);
    return `${chars.slice(0, chars.length >= 5 ? 2 : 1).join('')}${STARS}`;
  });
}

/** Tax id value: the last two characters of a value of six or more ("GB123456789" → "***89"). */
export function maskTaxIdValue(value: string): string {
  const chars = Array.from(value);
  return `${STARS}${chars.length >= 6 ? chars.slice(-2).join('') : ''}`;
}

/** An address as stored and sent (keys as on the wire). */
export type AddressFields = AddressJson;

/** An address: every line masked, `country` and `state_code` kept. Other keys pass unchanged. */
export function maskAddress<A extends AddressFields>(address: A): A;
export function maskAddress<A extends AddressFields>(address: A | null): A | null;
export function maskAddress<A extends AddressFields>(address: A | null | undefined): A | null | undefined;
export function maskAddress<A extends AddressFields>(address: A | null | undefined): A | null | undefined {
  if (!address) return address;
  return {
    ...address,
    city: maskText(address.city),
    postal_code: maskPostalCode(address.postal_code),
    state: maskText(address.state),
    house_number_or_name: maskText(address.house_number_or_name),
    line1: maskText(address.line1),
    line2: maskText(address.line2),
    organization: maskText(address.organization),
  };
}

export interface ContactFields {
  first_name?: string | null;
  last_name?: string | null;
  email_address?: string | null;
  phone_number?: string | null;
  address?: AddressFields | null;
}

/**
 * Contact details (shipping details, a guest buyer, a payout recipient): names, e-mail, phone and
 * address masked. Other keys (ids, `type`) pass unchanged.
 */
export function maskContactDetails<C extends ContactFields>(details: C): C {
  return {
    ...details,
    first_name: maskText(details.first_name),
    last_name: maskText(details.last_name),
    email_address: maskEmail(details.email_address),
    phone_number: maskPhone(details.phone_number),
    address: maskAddress(details.address),
  };
}

export interface BillingFields extends ContactFields {
  tax_id?: { value: string; kind: string } | null;
}

/** Billing details: the contact fields and the tax id value (its `kind` is kept). */
export function maskBillingDetails<B extends BillingFields>(details: B): B;
export function maskBillingDetails<B extends BillingFields>(details: B | null): B | null;
export function maskBillingDetails<B extends BillingFields>(details: B | null): B | null {
  if (!details) return details;
  const taxId = details.tax_id;
  return { ...maskContactDetails(details), tax_id: taxId ? { ...taxId, value: maskTaxIdValue(taxId.value) } : taxId };
}
