import { ConnectorError } from '../connector.ts';

/**
 * `connection_options['adyen-sepa']` (the API's `AdyenSepaOptions`) as Adyen's request fields,
 * checked before any call. `autoRescue`, `maxDaysToRescue` (1 to 48) and the test scenario are
 * Adyen's Auto Rescue fields of `additionalData` (docs.adyen.com/online-payments/auto-rescue/sepa;
 * `AdditionalDataCommon.autoRescue`, `maxDaysToRescue`, `autoRescueScenario`), with the
 * `merchantOrderReference` Auto Rescue requires; `additionalData` entries are passed as given.
 * `ownerName` names the account holder, which the buyer types with the IBAN on Adyen's page: the
 * session request has no field for it, so it is checked (a string) and kept with the transaction only.
 */

const SCENARIOS = new Set(['AutoRescueSuccessfulFirst', 'AutoRescueSuccessfulSecond', 'AutoRescueFailed']);
const KEYS = new Set(['autoRescue', 'maxDaysToRescue', 'additionalData', 'autoRescueSepaScenario', 'ownerName']);

const refuse = (message: string) => new ConnectorError('invalid_request', `adyen-sepa options: ${message}`);

/** The session fields the options ask for (`additionalData`, `merchantOrderReference`); empty without options. */
export function sepaOptionsBody(options: Record<string, unknown> | null, reference: string): Record<string, unknown> {
  if (!options) return {};
  const unknown = Object.keys(options).find((key) => !KEYS.has(key));
  if (unknown) throw refuse(`${unknown} is not a field of AdyenSepaOptions`);
  const { autoRescue, maxDaysToRescue, additionalData, autoRescueSepaScenario, ownerName } = options;
  if (autoRescue != null && typeof autoRescue !== 'boolean') throw refuse('autoRescue must be a boolean');
  if (
    maxDaysToRescue != null &&
    !(Number.isInteger(maxDaysToRescue) && (maxDaysToRescue as number) >= 1 && (maxDaysToRescue as number) <= 48)
  )
    throw refuse('maxDaysToRescue must be a whole number of days from 1 to 48');
  if (autoRescueSepaScenario != null && !SCENARIOS.has(String(autoRescueSepaScenario)))
    throw refuse(`autoRescueSepaScenario must be one of ${[...SCENARIOS].join(', ')}`);
  if (ownerName != null && typeof ownerName !== 'string') throw refuse('ownerName must be a string');
  const data: Record<string, string> = {};
  if (additionalData != null) {
    if (typeof additionalData !== 'object' || Array.isArray(additionalData))
      throw refuse('additionalData must be an object of strings');
    for (const [key, value] of Object.entries(additionalData)) {
      if (typeof value !== 'string') throw refuse(`additionalData.${key} must be a string`);
      data[key] = value;
    }
  }
  if (autoRescue != null) data.autoRescue = String(autoRescue);
  if (maxDaysToRescue != null) data.maxDaysToRescue = String(maxDaysToRescue);
  if (autoRescueSepaScenario != null) data.autoRescueScenario = String(autoRescueSepaScenario);
  return {
    ...(Object.keys(data).length > 0 ? { additionalData: data } : {}),
    ...(autoRescue === true ? { merchantOrderReference: reference } : {}),
  };
}
