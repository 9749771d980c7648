/**
 * The settings page's forms as the API's bodies: a merchant account's edit (PUT, partial: only the
 * fields changed) and a 3-D Secure configuration's create (POST) or edit (PUT, partial).
 */

/** The merchant account fields a person edits; the keys and secrets the API holds are left to the API. */
export const ACCOUNT_TEXT_FIELDS = [
  ['display_name', 'Name'],
  ['visa_network_tokens_requestor_id', 'Visa token requestor id'],
  ['visa_network_tokens_app_id', 'Visa token app id'],
  ['mastercard_network_tokens_requestor_id', 'Mastercard token requestor id'],
  ['mastercard_network_tokens_app_id', 'Mastercard token app id'],
  ['amex_network_tokens_requestor_id', 'Amex token requestor id'],
  ['amex_network_tokens_app_id', 'Amex token app id'],
] as const;
export const ACCOUNT_NUMBER_FIELDS = [
  ['over_capture_amount', 'Over-capture amount (minor units)'],
  ['over_capture_percentage', 'Over-capture percentage'],
] as const;
export const ACCOUNT_SWITCHES = [
  ['account_updater_enabled', 'Account updater'],
  ['async_network_tokens_enabled', 'Network tokens provisioned asynchronously'],
] as const;

export type AccountDraft = Record<string, string | boolean>;

/** The form's values of an account as the API gives it (null fields empty). */
export function accountDraft(account: Record<string, unknown>): AccountDraft {
  const draft: AccountDraft = {};
  for (const [key] of [...ACCOUNT_TEXT_FIELDS, ...ACCOUNT_NUMBER_FIELDS])
    draft[key] = account[key] === null || account[key] === undefined ? '' : String(account[key]);
  for (const [key] of ACCOUNT_SWITCHES) draft[key] = account[key] === true;
  return draft;
}

/** The fields changed between two drafts as PUT /merchant-accounts/{id} takes them; an error for a bad value. */
export function accountChanges(
  before: AccountDraft,
  after: AccountDraft,
): { body: Record<string, unknown> } | { error: string } {
  const body: Record<string, unknown> = {};
  for (const [key, title] of ACCOUNT_TEXT_FIELDS) {
    const value = String(after[key] ?? '').trim();
    if (value === String(before[key] ?? '').trim()) continue;
    if (key === 'display_name' && value === '') return { error: 'The account needs a name' };
    body[key] = value === '' ? null : value;
    if (value.length > (key === 'display_name' ? 200 : 1000)) return { error: `${title} is too long` };
  }
  for (const [key, title] of ACCOUNT_NUMBER_FIELDS) {
    const value = String(after[key] ?? '').trim();
    if (value === String(before[key] ?? '').trim()) continue;
    if (value !== '' && !/^\d+$/.test(value)) return { error: `${title}: a whole number, or empty for none` };
    body[key] = value === '' ? null : Number(value);
  }
  for (const [key] of ACCOUNT_SWITCHES) if (after[key] !== before[key]) body[key] = after[key] === true;
  return { body };
}

export const THREE_DS_FIELDS = [
  ['scheme', 'Card scheme', 'visa'],
  ['currency', 'Currency (empty: every currency)', 'EUR'],
  ['merchant_acquirer_bin', 'Acquirer BIN', '400000'],
  ['merchant_acquirer_id', 'Acquirer merchant id', 'MID-1'],
  ['merchant_name', 'Merchant name', 'Example shop'],
  ['merchant_country_code', 'Merchant country (ISO numeric)', '276'],
  ['merchant_category_code', 'Merchant category code', '5999'],
  ['merchant_url', 'Merchant URL', 'https://shop.example'],
] as const;

export type ThreeDsDraft = Record<(typeof THREE_DS_FIELDS)[number][0], string>;

export const EMPTY_THREE_DS: ThreeDsDraft = {
  scheme: '',
  currency: '',
  merchant_acquirer_bin: '',
  merchant_acquirer_id: '',
  merchant_name: '',
  merchant_country_code: '',
  merchant_category_code: '',
  merchant_url: '',
};

/**
 * A 3-D Secure configuration's body: every field for a create (metadata empty), only the changed
 * ones for an edit (`before` given). The scheme is lower case and the currency upper case.
 */
export function threeDsBody(draft: ThreeDsDraft, before?: ThreeDsDraft): Record<string, unknown> {
  const clean = (key: keyof ThreeDsDraft) => {
    const value = draft[key].trim();
    return key === 'scheme' ? value.toLowerCase() : key === 'currency' ? value.toUpperCase() : value;
  };
  const body: Record<string, unknown> = {};
  for (const [key] of THREE_DS_FIELDS) {
    const value = clean(key);
    if (before && value === before[key].trim()) continue;
    body[key] = key === 'currency' && value === '' ? null : value;
  }
  return before ? body : { ...body, metadata: {} };
}
