/**
 * Whether a payment service accepts a currency and a country: one rule for routing and for payment
 * options. A null currency or country (not known yet) is not filtered; a service that lists no
 * countries accepts every country.
 */
export function acceptanceProblem(
  service: { acceptedCurrencies: readonly string[]; acceptedCountries: readonly string[] },
  currency: string | null,
  country: string | null,
): 'currency_not_accepted' | 'country_not_accepted' | null {
  if (currency !== null && !service.acceptedCurrencies.includes(currency)) return 'currency_not_accepted';
  if (country !== null && service.acceptedCountries.length > 0 && !service.acceptedCountries.includes(country))
    return 'country_not_accepted';
  return null;
}
