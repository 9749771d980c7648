-- Issue 54. Success-rate routing (docs/routing.md, "Success-rate routing"; decision 0137):
-- technical errors (failures, timeouts, unknown outcomes) are counted apart from soft declines.
-- A service's expected success is its approval rate when it answers (successes and `failures`,
-- the soft declines, over the rule's window) times its availability (errors over the last two
-- one-minute buckets), so an outage's errors leave its approval rate once the outage is over.
-- Rows written before this migration keep their errors inside `failures`; they age out.
ALTER TABLE routing_stats ADD COLUMN errors integer NOT NULL DEFAULT 0;
