import { Type, type Static, type TSchema } from 'typebox';
import type { ThreeDsScenarioRow } from '../../db/schema.ts';
import { DateTime, ListEnvelope, Nullable, PaginationQuery, StringEnum, Uuid } from '../../http/schemas/common.ts';

export const THREE_DS_SCENARIO_TYPE = 'three-d-secure-scenario';

/**
 * The 3DS protocol version the sandbox 3DS server authenticates with when nothing asks for another:
 * its own default (three-d-secure.ts), and the version of a scenario outcome that names none.
 */
export const SANDBOX_THREE_DS_VERSION = '2.2.0';

export const AUTHENTICATION_STATUSES = ['Y', 'N', 'A', 'R', 'U', 'C', 'timeout'] as const;
export const RESULT_STATUSES = ['Y', 'N', 'timeout'] as const;

const Text = () => Type.String({ minLength: 1, maxLength: 255 });
const Condition = <T extends TSchema>(schema: T) => Type.Optional(Nullable(schema));

export const ThreeDsScenarioConditionsSchema = Type.Object(
  {
    first_name: Condition(Text()),
    last_name: Condition(Text()),
    email_address: Condition(Type.String({ minLength: 1, maxLength: 320, description: 'Matched ignoring case' })),
    amount: Condition(Type.Integer({ minimum: 0, maximum: 99_999_999, description: 'Minor currency units' })),
    external_identifier: Condition(Text()),
    card_number: Condition(
      Type.String({
        minLength: 1,
        maxLength: 32,
        description:
          'A valid card number; stored as a keyed fingerprint and returned masked (first 6 and last 4 digits)',
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'ThreeDSecureScenarioConditions',
    description:
      'Every condition set (not null) must equal the transaction for the scenario to apply; at least one must be set.',
  },
);
export type ThreeDsScenarioConditionsBody = Static<typeof ThreeDsScenarioConditionsSchema>;

export const ThreeDsScenarioOutcomeSchema = Type.Object(
  {
    version: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 20,
          description: `3DS protocol version to simulate, e.g. 2.2.0; omitted or null: ${SANDBOX_THREE_DS_VERSION}, the version the sandbox 3DS server uses`,
          examples: ['2.2.0'],
        }),
      ),
    ),
    authentication: Type.Object(
      {
        transaction_status: StringEnum(AUTHENTICATION_STATUSES, {
          description: 'Authentication response status (transStatus); C is a challenge',
        }),
      },
      { additionalProperties: false, title: 'ThreeDSecureScenarioOutcomeAuthentication' },
    ),
    result: Type.Optional(
      Nullable(
        Type.Object(
          { transaction_status: StringEnum(RESULT_STATUSES, { description: 'Status after the challenge' }) },
          { additionalProperties: false, title: 'ThreeDSecureScenarioOutcomeResult' },
        ),
      ),
    ),
  },
  {
    additionalProperties: false,
    title: 'ThreeDSecureScenarioOutcome',
    description: '`result` is required when the authentication status is C (a challenge)',
  },
);
export type ThreeDsScenarioOutcomeBody = Static<typeof ThreeDsScenarioOutcomeSchema>;

export const CreateThreeDsScenarioBody = Type.Object(
  { conditions: ThreeDsScenarioConditionsSchema, outcome: ThreeDsScenarioOutcomeSchema },
  { additionalProperties: false, title: 'ThreeDSecureScenarioCreate' },
);
export type CreateThreeDsScenarioBody = Static<typeof CreateThreeDsScenarioBody>;

export const UpdateThreeDsScenarioBody = Type.Object(
  {
    conditions: Type.Optional(Nullable(ThreeDsScenarioConditionsSchema)),
    outcome: Type.Optional(Nullable(ThreeDsScenarioOutcomeSchema)),
  },
  { additionalProperties: false, title: 'ThreeDSecureScenarioUpdate' },
);
export type UpdateThreeDsScenarioBody = Static<typeof UpdateThreeDsScenarioBody>;

export const ThreeDsScenarioParams = Type.Object({
  three_ds_scenario_id: Uuid({ description: 'ID of the 3DS scenario' }),
});

export const ListThreeDsScenariosQuery = Type.Object(PaginationQuery);
export type ListThreeDsScenariosQuery = Static<typeof ListThreeDsScenariosQuery>;

const Out = () => Nullable(Type.String());

export const ThreeDsScenarioOutcomeResourceSchema = Type.Object(
  {
    version: Type.String(),
    authentication: Type.Object({ transaction_status: Type.String() }, { additionalProperties: false }),
    result: Nullable(Type.Object({ transaction_status: Type.String() }, { additionalProperties: false })),
  },
  { additionalProperties: false, title: 'ThreeDSecureScenarioOutcome' },
);
export type ThreeDsScenarioOutcome = Static<typeof ThreeDsScenarioOutcomeResourceSchema>;

export const ThreeDsScenarioSchema = Type.Object(
  {
    type: Type.Literal(THREE_DS_SCENARIO_TYPE),
    id: Uuid(),
    merchant_account_id: Type.String(),
    created_at: DateTime(),
    updated_at: DateTime(),
    conditions: Type.Object(
      {
        first_name: Out(),
        last_name: Out(),
        email_address: Out(),
        amount: Nullable(Type.Integer()),
        external_identifier: Out(),
        card_number: Nullable(Type.String({ description: 'Masked: first 6 and last 4 digits' })),
      },
      { additionalProperties: false, title: 'ThreeDSecureScenarioConditions' },
    ),
    outcome: ThreeDsScenarioOutcomeResourceSchema,
  },
  { additionalProperties: false, title: 'ThreeDSecureScenario' },
);
export type ThreeDsScenario = Static<typeof ThreeDsScenarioSchema>;

export const ThreeDsScenariosSchema = ListEnvelope(ThreeDsScenarioSchema, 'ThreeDSecureScenarios');

export function toThreeDsScenarioOutcome(outcome: ThreeDsScenarioRow['outcome']): ThreeDsScenarioOutcome {
  return {
    version: outcome.version,
    authentication: { transaction_status: outcome.authentication.transaction_status },
    result: outcome.result ? { transaction_status: outcome.result.transaction_status } : null,
  };
}

/** The only way a scenario row becomes a response: the card number only as its mask. */
export function toThreeDsScenarioResource(row: ThreeDsScenarioRow): ThreeDsScenario {
  return {
    type: THREE_DS_SCENARIO_TYPE,
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    conditions: {
      first_name: row.first_name,
      last_name: row.last_name,
      email_address: row.email_address,
      amount: row.amount === null ? null : Number(row.amount),
      external_identifier: row.external_identifier,
      card_number: row.card_number_masked,
    },
    outcome: toThreeDsScenarioOutcome(row.outcome),
  };
}
