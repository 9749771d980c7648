-- The JSON values of a grouped write (src/db/group-commit.ts, group-commit-sql.ts `jsonRows`): one
-- JSON array for every member's value of a `jsonb` parameter, each value wrapped in an array of its
-- own (`[v]`, or `null` for SQL NULL: `-> 0` of a scalar is the scalar itself, hence the CASE),
-- instead of a PostgreSQL array literal of JSON texts, whose quotes and backslashes the server
-- would have to escape. This unnests it, one row per value, after
-- checking that it holds exactly `expected` values (one per row of the grouped statement, whose
-- other arrays are unnested beside it, in order, as `unnest` does): a count that differs raises
-- SV001 and nothing is written (its members then run one by one).
CREATE FUNCTION svc_json_rows(rows jsonb, expected bigint) RETURNS SETOF jsonb
LANGUAGE sql VOLATILE AS $$
  SELECT CASE WHEN jsonb_typeof(t.e) = 'array' THEN t.e -> 0 END
  FROM jsonb_array_elements(CASE WHEN svc_require(jsonb_array_length(rows) = expected, 'grouped JSON values are not one per row') THEN rows END) AS t(e)
$$;
