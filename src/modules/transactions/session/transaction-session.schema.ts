import { Type, type Static } from 'typebox';
import { Nullable, StringEnum } from '../../../http/schemas/common.ts';

export const INTEGRATION_CLIENTS = ['redirect', 'web', 'android', 'ios'] as const;

export const TransactionSessionQuery = Type.Object({
  token: Type.Optional(
    Nullable(
      Type.String({
        minLength: 1,
        maxLength: 1000,
        description: "The transaction's `session_token`: the credential of this operation",
      }),
    ),
  ),
});

export const UpdateTransactionSessionBody = Type.Object(
  {
    payload: Type.Optional(
      Nullable(
        Type.Record(Type.String(), Type.Unknown(), {
          maxProperties: 100,
          description:
            "Connector-specific data to update the provider's client session with; absent or null: read the session only",
        }),
      ),
    ),
  },
  { additionalProperties: false, title: 'UpdateTransactionSessionRequest' },
);
export type UpdateTransactionSessionBody = Static<typeof UpdateTransactionSessionBody>;

export const TransactionSessionSchema = Type.Object(
  {
    session_data: Nullable(
      Type.Record(Type.String(), Type.Unknown(), {
        description: "What the client needs to launch the payment service's step (its SDK, or the page to open)",
      }),
    ),
    default_completion_url: Type.String({
      description: 'Where to send the buyer when the client SDK names no place at the end of the flow',
    }),
    integration_client: StringEnum(INTEGRATION_CLIENTS, { description: 'The client the session is for' }),
  },
  { additionalProperties: false, title: 'UpdateTransactionSessionResponse' },
);
export type TransactionSession = Static<typeof TransactionSessionSchema>;
