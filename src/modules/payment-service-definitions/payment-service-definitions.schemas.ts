import { Type, type Static } from 'typebox';
import type {
  ConnectorCapabilities,
  ConnectorDefinition,
  DefinitionField,
  SessionOutcome,
} from '../../connectors/connector.ts';
import { ListEnvelope, Nullable, PaginationQuery, StringEnum } from '../../http/schemas/common.ts';

export const PAYMENT_SERVICE_DEFINITION_TYPE = 'payment-service-definition';
export const PAYMENT_SERVICE_SESSION_TYPE = 'payment-service-session';

/** `<provider>-<method>`, the shape the connector registry enforces. */
export const DefinitionId = (description = 'ID of the payment service definition: provider, a dash, then the method') =>
  Type.String({
    minLength: 3,
    maxLength: 100,
    pattern: '^[a-z0-9]+(-[a-z0-9_]+)+$',
    description,
    examples: ['mock-card'],
  });

export const PaymentServiceDefinitionParams = Type.Object({ payment_service_definition_id: DefinitionId() });

export const ListPaymentServiceDefinitionsQuery = Type.Object({ ...PaginationQuery });
export type ListPaymentServiceDefinitionsQuery = Static<typeof ListPaymentServiceDefinitionsQuery>;

const MODES = [
  'card',
  'redirect',
  'applepay',
  'googlepay',
  'checkout-session',
  'click-to-pay',
  'gift-card',
  'bank',
] as const;
const FORMATS = ['text', 'multiline', 'number', 'timezone', 'boolean'] as const;
const INTEGRATION_CLIENTS = ['redirect', 'web', 'android', 'ios'] as const;

export const DefinitionFieldSchema = Type.Object(
  {
    key: Type.String(),
    display_name: Type.String(),
    required: Type.Boolean(),
    format: StringEnum(FORMATS),
    secret: Type.Boolean({ description: 'Secret values are never returned when reading a payment service' }),
    verifiable: Type.Boolean({
      description:
        'The field takes part in credential verification (POST /payment-services/verify): its value is checked with the payment service, not only its form',
    }),
  },
  { additionalProperties: false, title: 'DefinitionField' },
);

const RequiredCheckoutFieldsSchema = Type.Object(
  {
    required_fields: Type.Array(Type.String()),
    conditions: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
  },
  { additionalProperties: false, title: 'RequiredCheckoutFields' },
);

const ConfigurationSchema = Type.Object(
  {
    approval_ui_target: StringEnum(['new_window', 'any'] as const),
    approval_ui_height: Type.String(),
    approval_ui_width: Type.String(),
    cart_items_limit: Type.Integer(),
    cart_items_required: Type.Boolean(),
    cart_items_should_match_amount: Type.Boolean(),
  },
  { additionalProperties: false, title: 'PaymentServiceConfiguration' },
);

export const PaymentServiceDefinitionSchema = Type.Object(
  {
    id: Type.String({ description: 'Provider, a dash, then the method (e.g. `mock-card`)' }),
    type: Type.Literal(PAYMENT_SERVICE_DEFINITION_TYPE),
    display_name: Type.String(),
    method: Type.String({ description: 'The method this definition processes' }),
    fields: Type.Array(DefinitionFieldSchema),
    reporting_fields: Type.Array(DefinitionFieldSchema),
    supported_currencies: Type.Array(Type.String(), { description: 'ISO 4217 currency codes' }),
    supported_countries: Type.Array(Type.String(), { description: 'ISO 3166-1 alpha-2 country codes' }),
    mode: StringEnum(MODES),
    icon_url: Nullable(Type.String()),
    supported_features: Type.Record(Type.String(), Type.Boolean(), {
      description: 'What a payment service of this definition can do, by feature name',
    }),
    required_checkout_fields: Type.Array(RequiredCheckoutFieldsSchema),
    configuration: ConfigurationSchema,
    supported_integration_clients: Nullable(Type.Array(StringEnum(INTEGRATION_CLIENTS))),
  },
  { additionalProperties: false, title: 'PaymentServiceDefinition' },
);
export type PaymentServiceDefinition = Static<typeof PaymentServiceDefinitionSchema>;

export const PaymentServiceDefinitionsSchema = ListEnvelope(
  PaymentServiceDefinitionSchema,
  'PaymentServiceDefinitions',
);

/** The free-form body of both session operations, passed to the connector as it is. */
export const CreateSessionBody = Type.Record(Type.String(), Type.Unknown(), {
  title: 'CreateSessionBody',
  description: 'Free-form JSON object sent to the payment service',
});
export type CreateSessionBody = Static<typeof CreateSessionBody>;

export const CreateSessionSchema = Type.Object(
  {
    type: Type.Literal(PAYMENT_SERVICE_SESSION_TYPE),
    status: StringEnum(['succeeded', 'failed'] as const),
    code: Nullable(Type.String()),
    status_code: Nullable(Type.Integer({ description: 'HTTP status received from the payment service' })),
    response_body: Nullable(
      Type.Record(Type.String(), Type.Unknown(), { description: 'JSON body received from the payment service' }),
    ),
  },
  { additionalProperties: false, title: 'CreateSession' },
);
export type CreateSession = Static<typeof CreateSessionSchema>;

/** Wire feature names of the connector capabilities. `refunds`: every connector refunds (contract). */
function supportedFeatures(c: ConnectorCapabilities): Record<string, boolean> {
  return {
    partial_capture: c.partialCapture,
    multi_capture: c.multiCapture,
    over_capture: c.overCapture,
    refunds: true,
    partial_refunds: c.partialRefund,
    void: c.void,
    cancel: c.cancel,
    sync: c.sync,
    payment_method_tokenization: c.tokenize,
    network_tokens: c.networkTokens,
    incremental_authorization: c.incrementalAuthorization,
    three_d_secure_hosted: c.threeDSecure,
    payouts: c.payout,
    sessions: c.sessions,
    redirect: c.redirect,
  };
}

const toDefinitionField = (f: DefinitionField) => ({
  key: f.key,
  display_name: f.display_name,
  required: f.required,
  format: f.format,
  secret: f.secret,
  verifiable: f.verifiable,
});

/** The only way a registry definition becomes a response. */
export function toPaymentServiceDefinitionResource(d: ConnectorDefinition): PaymentServiceDefinition {
  return {
    id: d.id,
    type: PAYMENT_SERVICE_DEFINITION_TYPE,
    display_name: d.displayName,
    method: d.method,
    fields: d.fields.map(toDefinitionField),
    reporting_fields: d.reportingFields.map(toDefinitionField),
    supported_currencies: [...d.supportedCurrencies],
    supported_countries: [...d.supportedCountries],
    mode: d.mode,
    icon_url: d.iconUrl,
    supported_features: supportedFeatures(d.capabilities),
    // No registered connector asks checkout for extra fields yet.
    required_checkout_fields: [],
    configuration: { ...d.configuration },
    supported_integration_clients: d.supportedIntegrationClients ? [...d.supportedIntegrationClients] : null,
  };
}

export function toCreateSessionResource(outcome: SessionOutcome): CreateSession {
  return {
    type: PAYMENT_SERVICE_SESSION_TYPE,
    status: outcome.status,
    code: outcome.code,
    status_code: outcome.statusCode,
    response_body: outcome.responseBody,
  };
}
