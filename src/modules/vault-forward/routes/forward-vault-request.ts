import { Type } from 'typebox';
import { defineRoute } from '../../../http/define-route.ts';
import { forwardRequest } from '../vault-forward.service.ts';

const text = (description: string) => Type.Optional(Type.String({ maxLength: 8192, description }));

export const forwardVaultRequest = defineRoute({
  operationId: 'forwardVaultRequest',
  method: 'POST',
  url: '/vault-forward',
  scope: 'vault-forward.write',
  tags: ['vault-forward'],
  summary: 'Send stored card data to a third party',
  description:
    'The JSON body goes to `x-vault-forward-url` with `x-vault-forward-http-method`, its placeholders replaced with the stored cards of `x-vault-forward-payment-methods` ' +
    '(`{{CARD_NUMBER_1}}` or `{{ CARD_NUMBER_1 }}`, `CARD_EXPIRATION_DATE_n`, `CARD_EXPIRATION_MONTH_n`, `CARD_EXPIRATION_MONTH_SHORT_n`, `CARD_EXPIRATION_YEAR_n`, `CARD_EXPIRATION_YEAR_SHORT_n`, `CARD_SECURITY_CODE_n` with `x-vault-forward-checkout-session`). ' +
    "`x-vault-forward-header-<name>` headers are sent as `<name>`. The answer is the target's status, headers (less hop-by-hop ones) and body, with any forwarded card number masked. " +
    'The authentication methods of `x-vault-forward-authentications` (signature, mtls, mle; see /vault-forward/configs) are applied in the order given before the request leaves. ' +
    "Production: https, no IP addresses, only hosts of the merchant account's vault forward configs that are within VAULT_FORWARD_ALLOWED_HOSTS; the address a name resolves to is checked and connected to; redirects are not followed (docs/vault-forward.md).",
  status: 200,
  headers: {
    'x-vault-forward-url': text('Target URL'),
    'x-vault-forward-http-method': text('Method toward the target (default POST)'),
    'x-vault-forward-payment-methods': text('Stored payment method ids, comma separated; placeholder n is the n-th'),
    'x-vault-forward-authentications': text(
      "Authentication method ids (of this merchant account's vault forward configs), comma separated, applied in this order; at most 5",
    ),
    'x-vault-forward-checkout-session': text(
      'A checkout session holding the security code of one of the cards: its CARD_SECURITY_CODE_n (used once)',
    ),
    'x-vault-forward-timeout': text('Seconds to wait for the target, at most VAULT_FORWARD_TIMEOUT_SECONDS'),
  },
  body: Type.Optional(Type.Unknown({ description: 'JSON passed through with placeholders replaced' })),
  response: Type.Unknown({
    description: "The target's answer as it came (status, headers, body), card numbers masked",
  }),
  rawResponse: true,
  handler: ({ ctx, headers, body }) => forwardRequest(ctx, headers, body) as never,
});
