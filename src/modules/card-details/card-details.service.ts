import type { RequestContext } from '../../context.ts';
import { fieldRefusal } from '../../errors/app-error.ts';
import { detectSchemes, numberLengths } from '../../lib/card-schemes.ts';
import { schemeIconUrl } from '../card-scheme-definitions/card-scheme-definitions.service.ts';
import type { CardDetail } from './card-details.schemas.ts';

const MAX_BIN_DIGITS = 8;
const MIN_BIN_DIGITS = 6;

/**
 * Refuses anything but a BIN. A value with more than 8 digits is most likely a card number: it is
 * refused with a message saying to send the BIN only, and neither the message nor a log line
 * repeats it.
 */
function checkBin(value: string): string {
  if ((value.match(/\d/g)?.length ?? 0) > MAX_BIN_DIGITS) {
    throw fieldRefusal(
      'query',
      '/bin',
      'Send only the BIN, the first 6 to 8 digits of the card number, never the full card number',
      'bin_too_long',
    );
  }
  if (!/^\d+$/.test(value)) throw fieldRefusal('query', '/bin', 'The BIN must contain only digits', 'bin_not_digits');
  if (value.length < MIN_BIN_DIGITS)
    throw fieldRefusal('query', '/bin', 'The BIN must have 6 to 8 digits', 'bin_too_short');
  return value;
}

/**
 * What the scheme table tells about a BIN. Deterministic and offline: the card type and, outside
 * domestic schemes, the country need an issuer BIN database, which the server does not have yet.
 */
export async function getCardDetails(ctx: RequestContext, value: string): Promise<CardDetail> {
  const bin = checkBin(value);
  const detection = detectSchemes(bin);
  return {
    type: 'card-detail',
    id: bin,
    scheme: detection.scheme,
    additional_schemes: [...detection.additionalSchemes],
    scheme_icon_url: schemeIconUrl(ctx, detection.scheme),
    card_type: null,
    country: detection.country,
    number_lengths: [...numberLengths(detection.scheme)],
  };
}
