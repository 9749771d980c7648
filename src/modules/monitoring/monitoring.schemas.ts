import { Type, type Static } from 'typebox';
import type { MonitoringIncidentRow, MonitoringMetricRow, MonitoringSampleRow } from '../../db/schema-insights.ts';
import { DateTime, Defaulted, ListEnvelope, Nullable, PaginationQuery, Uuid } from '../../http/schemas/common.ts';

export const METRIC_TYPE = 'monitoring.metric';
export const INCIDENT_TYPE = 'monitoring.incident';

const Interval = (description: string) => Type.String({ minLength: 3, maxLength: 100, description });
const NullableValues = <T extends ReturnType<typeof Type.String>>(item: T, description: string) =>
  Type.Optional(
    Type.Array(Nullable(item), {
      minItems: 1,
      maxItems: 50,
      description: `${description}; null matches transactions without one`,
    }),
  );

export const MonitoringFiltersSchema = Type.Object(
  {
    datetime_range: Interval(
      'The window each sample covers, ending at the sample: an ISO 8601 interval of 5 to 60 minutes, e.g. PT60M/now',
    ),
    method: NullableValues(Type.String({ minLength: 1, maxLength: 50 }), 'Payment methods'),
    payment_method_bin: NullableValues(Type.String({ pattern: '^[0-9]{6}$' }), 'Card BINs, 6 digits'),
    payment_method_scheme: NullableValues(Type.String({ minLength: 1, maxLength: 50 }), 'Card schemes'),
    payment_service_id: NullableValues(Type.String({ format: 'uuid' }), 'Payment services'),
  },
  { additionalProperties: false, title: 'MonitoringMetricFilters' },
);

export const MonitoringSpecSchema = Type.Object(
  {
    model: Type.Literal('auth_rate', { description: 'Only the authorization rate is monitored' }),
    params: Type.Object({ filters: MonitoringFiltersSchema }, { additionalProperties: false }),
  },
  { additionalProperties: false, title: 'MonitoringMetricSpec' },
);

/** An incident of the card-testing guard: no metric; what passed the threshold, and until when the source is throttled. */
export const CardTestingSpecSchema = Type.Object(
  {
    model: Type.Literal('card_testing', {
      description: 'Raised by the card-testing guard (docs/risk.md, "Card-testing guard"), not by a metric',
    }),
    params: Type.Object(
      {
        source_type: Type.String({ description: 'ip_address, buyer, checkout_session or embed_token' }),
        distinct_declined_cards: Type.Integer({ description: 'Distinct declined cards of the source in the window' }),
        threshold: Type.Integer(),
        window_minutes: Type.Integer(),
        max_amount: Nullable(Type.Integer({ description: 'Small-amount ceiling (minor units); null: any amount' })),
        throttled_until: DateTime(),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false, title: 'MonitoringCardTestingSpec' },
);

const Threshold = Nullable(Type.Number({ minimum: 0, maximum: 1 }));
export const AlertingPolicySchema = Type.Object(
  {
    strategy: Type.Literal('threshold'),
    params: Type.Object(
      { alert_gt: Threshold, alert_lt: Threshold },
      {
        additionalProperties: false,
        description: 'A sample is unhealthy above alert_gt or below alert_lt (rates from 0 to 1)',
      },
    ),
  },
  { additionalProperties: false, title: 'MonitoringAlertingPolicy' },
);

const Debounce = Type.Integer({ minimum: 1, maximum: 10 });
export const IncidentPolicySchema = Type.Object(
  {
    strategy: Type.Literal('debouncing'),
    params: Type.Object(
      { create_after_n: Debounce, close_after_n: Debounce },
      {
        additionalProperties: false,
        description: 'Consecutive unhealthy samples that open an incident, and healthy samples that close it',
      },
    ),
  },
  { additionalProperties: false, title: 'MonitoringIncidentPolicy' },
);

const DisplayName = Type.String({ minLength: 1, maxLength: 200 });

export const CreateMonitoringMetricBody = Type.Object(
  {
    display_name: DisplayName,
    spec: MonitoringSpecSchema,
    alerting_policy: Nullable(AlertingPolicySchema),
    incident_policy: Nullable(IncidentPolicySchema),
  },
  { additionalProperties: false, title: 'MonitoringMetricCreate' },
);
export type CreateMonitoringMetricBody = Static<typeof CreateMonitoringMetricBody>;

export const UpdateMonitoringMetricBody = Type.Object(
  {
    display_name: Type.Optional(DisplayName),
    alerting_policy: Type.Optional(Nullable(AlertingPolicySchema)),
    incident_policy: Type.Optional(Nullable(IncidentPolicySchema)),
  },
  {
    additionalProperties: false,
    title: 'MonitoringMetricUpdate',
    description: 'The spec cannot change: create another metric',
  },
);
export type UpdateMonitoringMetricBody = Static<typeof UpdateMonitoringMetricBody>;

export const SampleSchema = Type.Object(
  {
    timestamp: DateTime({ description: 'The end of the minute the sample closes' }),
    value: Nullable(
      Type.Number({ description: 'The authorization rate over the window; null when nothing was processed' }),
    ),
    healthy: Nullable(Type.Boolean({ description: 'Null without an alerting policy or a value' })),
    incident_related: Type.Boolean(),
  },
  { additionalProperties: false, title: 'MonitoringSample' },
);

export const MonitoringMetricSchema = Type.Object(
  {
    type: Type.Literal(METRIC_TYPE),
    id: Uuid(),
    merchant_account_id: Type.String(),
    display_name: Type.String(),
    spec: MonitoringSpecSchema,
    alerting_policy: Nullable(AlertingPolicySchema),
    incident_policy: Nullable(IncidentPolicySchema),
    alerting_policy_updated_at: DateTime(),
    incident_policy_updated_at: DateTime(),
    creator_id: Nullable(Type.String()),
    creator_type: Nullable(Type.Union([Type.Literal('user'), Type.Literal('private_key')])),
    creator_display_name: Nullable(Type.String()),
    samples_view: Type.Array(SampleSchema, {
      description: 'The samples within samples_timestamp_interval, oldest first',
    }),
    created_at: DateTime(),
    updated_at: DateTime(),
  },
  { additionalProperties: false, title: 'MonitoringMetric' },
);
export type MonitoringMetric = Static<typeof MonitoringMetricSchema>;
export const MonitoringMetricsSchema = ListEnvelope(MonitoringMetricSchema, 'MonitoringMetrics');

export const MonitoringIncidentSchema = Type.Object(
  {
    type: Type.Literal(INCIDENT_TYPE),
    id: Uuid(),
    merchant_account_id: Type.String(),
    metric_id: Nullable(Uuid({ description: 'Null once the metric is deleted' })),
    display_name: Type.String({ description: "The metric's name when the incident opened" }),
    spec: Type.Union([MonitoringSpecSchema, CardTestingSpecSchema], {
      description: "The metric's spec when the incident opened, or the card-testing guard's",
    }),
    alerting_policy: Nullable(AlertingPolicySchema),
    incident_policy: Nullable(IncidentPolicySchema),
    notes: Nullable(Type.String()),
    created_at: DateTime(),
    updated_at: DateTime(),
    closed_at: Nullable(DateTime()),
  },
  { additionalProperties: false, title: 'MonitoringIncident' },
);
export type MonitoringIncident = Static<typeof MonitoringIncidentSchema>;
export const MonitoringIncidentsSchema = ListEnvelope(MonitoringIncidentSchema, 'MonitoringIncidents');

export const MetricParams = Type.Object({ metric_id: Uuid({ description: 'ID of the monitoring metric' }) });
export const IncidentParams = Type.Object({ incident_id: Uuid({ description: 'ID of the incident' }) });

export const ListMonitoringMetricsQuery = Type.Object({
  cursor: PaginationQuery.cursor,
  limit: Defaulted(
    Type.Integer({ minimum: 1, maximum: 10, default: 5, description: 'Page size (each metric carries its samples)' }),
  ),
  samples_timestamp_interval: Interval('Which samples each metric carries, e.g. PT60M/now'),
  search: Type.Optional(
    Type.String({ minLength: 1, maxLength: 200, description: 'Part of the display name, any case' }),
  ),
});
export type ListMonitoringMetricsQuery = Static<typeof ListMonitoringMetricsQuery>;
export const GetMonitoringMetricQuery = Type.Object({
  samples_timestamp_interval: Type.Optional(Interval('Which samples to carry (default PT60M/now)')),
});

export const ListIncidentsQuery = Type.Object({
  ...PaginationQuery,
  timestamp_interval: Type.Optional(Interval('Incidents opened within this interval')),
});
export type ListIncidentsQuery = Static<typeof ListIncidentsQuery>;

export const UpdateIncidentBody = Type.Object(
  { notes: Nullable(Type.String({ minLength: 1, maxLength: 1000 })) },
  { additionalProperties: false, title: 'MonitoringIncidentUpdate' },
);

export const toSample = (s: MonitoringSampleRow) => ({
  timestamp: s.sampled_at.toISOString(),
  value: s.value,
  healthy: s.healthy,
  incident_related: s.incident_related,
});

export function toMonitoringMetricResource(row: MonitoringMetricRow, samples: MonitoringSampleRow[]): MonitoringMetric {
  return {
    type: METRIC_TYPE,
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    display_name: row.display_name,
    spec: row.spec,
    alerting_policy: row.alerting_policy,
    incident_policy: row.incident_policy,
    alerting_policy_updated_at: row.alerting_policy_updated_at.toISOString(),
    incident_policy_updated_at: row.incident_policy_updated_at.toISOString(),
    creator_id: row.creator_id,
    creator_type: row.creator_type,
    creator_display_name: row.creator_display_name,
    samples_view: samples.map(toSample),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function toIncidentResource(row: MonitoringIncidentRow): MonitoringIncident {
  return {
    type: INCIDENT_TYPE,
    id: row.id,
    merchant_account_id: row.merchant_account_id,
    metric_id: row.metric_id,
    display_name: row.display_name,
    spec: row.spec,
    alerting_policy: row.alerting_policy,
    incident_policy: row.incident_policy,
    notes: row.notes,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    closed_at: row.closed_at ? row.closed_at.toISOString() : null,
  };
}
