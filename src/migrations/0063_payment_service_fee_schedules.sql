-- Issue 54. Least-cost routing (docs/routing.md, "Least-cost routing"): each payment service's
-- fee schedule, written with PUT /payment-services/{id}/fee-schedule. Kept on the service's row,
-- so the per-process cache of routable services (told of every change by the payment_services
-- trigger of migration 0034) carries it to routing without a database round trip.
-- `fee_schedule`: the entries ({scheme, card_type, currency, country, percent, fixed_fee}, see
-- src/modules/payment-services/fee-schedule.ts); null: never set (the same as no entries:
-- the service's cost is unknown).
ALTER TABLE payment_services ADD COLUMN fee_schedule jsonb;
ALTER TABLE payment_services ADD COLUMN fee_schedule_updated_at timestamptz(3);
