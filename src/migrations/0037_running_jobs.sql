-- The running jobs, for the check every poll of every worker makes for jobs whose worker died on
-- their last attempt (`failAbandonedJobs`: status 'running', lease over). Without it that check
-- read every queued job too (through jobs_due_idx, or the whole table where the planner preferred
-- that): 4.5 ms with 20,000 jobs queued, as the settlements of a minute of captures at 300/s are,
-- run after each job a worker finishes (decision 0109).
-- A worker runs a few jobs at a time, so this index holds a few rows per worker.
CREATE INDEX jobs_running_idx ON jobs (locked_until) WHERE status = 'running';
