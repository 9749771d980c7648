-- Incremental authorization (POST /transactions/{id}/authorization/increment): an `increment`
-- attempt raises the authorized amount by its `amount` once the provider approves it.
ALTER TABLE transaction_attempts DROP CONSTRAINT transaction_attempts_operation_check;
ALTER TABLE transaction_attempts ADD CONSTRAINT transaction_attempts_operation_check
  CHECK (operation IN ('authorize', 'capture', 'void', 'cancel', 'refund', 'increment'));
