-- Change notifications for the per-process read caches (src/db/read-cache.ts, src/db/change-feed.ts;
-- decisions 0082 and 0083). Every row written to a
-- cached table notifies `svc_changes` with `<schema>:<table>:<merchant_account_id>`; PostgreSQL
-- sends it when the transaction commits (and folds identical notifications of one transaction into
-- one), so a listener that hears it reads the change. The schema is the table's, not the writer's
-- search_path: listeners of other schemas on the same database ignore it.
CREATE FUNCTION svc_notify_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' THEN
    PERFORM pg_notify('svc_changes', TG_TABLE_SCHEMA || ':' || TG_TABLE_NAME || ':' || OLD.merchant_account_id);
  END IF;
  IF TG_OP <> 'DELETE' THEN
    PERFORM pg_notify('svc_changes', TG_TABLE_SCHEMA || ':' || TG_TABLE_NAME || ':' || NEW.merchant_account_id);
  END IF;
  RETURN NULL;
END
$$;

CREATE TRIGGER payment_services_notify_change
  AFTER INSERT OR UPDATE OR DELETE ON payment_services
  FOR EACH ROW EXECUTE FUNCTION svc_notify_change();

CREATE TRIGGER webhook_subscriptions_notify_change
  AFTER INSERT OR UPDATE OR DELETE ON webhook_subscriptions
  FOR EACH ROW EXECUTE FUNCTION svc_notify_change();
