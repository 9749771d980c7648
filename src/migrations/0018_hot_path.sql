-- A guard for one-statement writes (src/db/write-batch.ts, runGuardedWrites): a statement that
-- updates a row only if it is still in the state it was read in, together with the writes that
-- record that change (attempt, history, audit, webhook outbox), calls svc_require on "the update
-- found its row". If it did not, the error undoes every write of the statement, and the caller
-- (which sees SQLSTATE SV001) takes its locked path instead. One statement, no BEGIN/COMMIT.
CREATE FUNCTION svc_require(ok boolean, message text) RETURNS boolean
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  IF ok IS NOT TRUE THEN
    RAISE EXCEPTION USING ERRCODE = 'SV001', MESSAGE = message;
  END IF;
  RETURN true;
END
$$;

-- Until when the vault holds a security code for a stored card (POST /payment-methods with
-- security_code), so a payment takes it only when there may be one: the usual payment with a
-- stored card skips that delete. A code taken or expired leaves the time behind; it only says
-- "look", the vault's row is the truth.
ALTER TABLE payment_methods ADD COLUMN security_code_held_until timestamptz(3);
