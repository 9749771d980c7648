import {
  type AuthorizeOutcome,
  type AuthorizeRequest,
  ConnectorError,
  type SyncOutcome,
  type SyncRequest,
} from '../connector.ts';
import type { ProviderConnectorOptions } from '../provider-http.ts';
import { AdyenCapturedAtOnceConnector } from './adyen-captured-at-once.ts';
import { hostedSessionBody, openHostedSession, syncOfHostedSession } from './adyen.sessions.ts';
import { ADYEN_SEPA_DEFINITION } from './adyen-sepa.definition.ts';
import { sepaOptionsBody } from './adyen-sepa.options.ts';

/**
 * SEPA Direct Debit through Adyen's Hosted Checkout (`adyen.sessions.ts`): the session's page is
 * the transaction's `approval_url`, where the buyer gives the account holder and IBAN; the buyer's
 * return (`sessionResult`) or Adyen's AUTHORISATION webhook completes the payment, captured at once
 * (`captureDelayHours: 0`). A debit that fails later (returned by the buyer's bank, charged back)
 * arrives as Adyen's CHARGEBACK webhook: the transaction becomes disputed. Refunds are Adyen
 * modifications; a SEPA payment cannot be cancelled once authorised (nothing is held).
 */
export class AdyenSepaConnector extends AdyenCapturedAtOnceConnector {
  readonly definition = ADYEN_SEPA_DEFINITION;

  constructor(options: ProviderConnectorOptions = {}) {
    super(options, {
      capture: 'SEPA Direct Debit payments are captured when the buyer pays',
      void: 'An authorised SEPA Direct Debit cannot be cancelled: refund it',
    });
  }

  authorize(request: AuthorizeRequest): Promise<AuthorizeOutcome> {
    if (request.instrument.kind !== 'redirect' || request.instrument.method !== 'sepa')
      throw new ConnectorError('invalid_request', 'adyen-sepa takes SEPA redirect payments only');
    if (request.intent !== 'capture')
      throw new ConnectorError(
        'invalid_request',
        'SEPA Direct Debit through Adyen is captured at once: send intent capture',
      );
    if (request.currency !== 'EUR') throw new ConnectorError('invalid_request', 'SEPA Direct Debit takes EUR only');
    const body = hostedSessionBody(request, 'sepadirectdebit', {
      captureDelayHours: 0,
      ...sepaOptionsBody(request.options, request.reference),
    });
    return openHostedSession(this.client, request, body);
  }

  /** The session's result on the buyer's return (or its creation asked again). */
  protected syncAuthorization(request: SyncRequest): Promise<SyncOutcome> {
    return syncOfHostedSession(this.client, request, 'captured');
  }
}
