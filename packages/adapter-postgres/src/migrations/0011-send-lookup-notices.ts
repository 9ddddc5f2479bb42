/**
 * Every change to a campaign or a webhook subscription (created, edited, paused, deleted, a
 * table emptied) is announced at commit on the channel of the API key notices (schema version
 * 8), `tidings_api_keys`: the schema and the campaign's id, or the subscription's organization
 * id, as a JSON array (`null` for a TRUNCATE). Processes that keep what a send looks up in
 * memory (`tidings serve`: the campaign, and where the organization's events go) forget it at
 * once, whoever changed it. One channel, so one listening connection, serves them all: key,
 * campaign and organization ids never look alike. The functions run with the schema they were
 * created in as their search path.
 */
export const sendLookupNotices: readonly string[] = [
  `CREATE FUNCTION campaign_changed() RETURNS trigger
   LANGUAGE plpgsql
   SET search_path FROM CURRENT
   AS $$
   BEGIN
     PERFORM pg_notify('tidings_api_keys', json_build_array(TG_TABLE_SCHEMA, OLD.id)::text);
     RETURN NULL;
   END
   $$`,
  `CREATE TRIGGER campaign_changed AFTER UPDATE OR DELETE ON campaigns
   FOR EACH ROW EXECUTE FUNCTION campaign_changed()`,
  `CREATE TRIGGER campaigns_emptied AFTER TRUNCATE ON campaigns
   FOR EACH STATEMENT EXECUTE FUNCTION api_keys_emptied()`,
  // A new subscription changes where its organization's events go, so INSERT announces too;
  // NEW on INSERT, OLD otherwise (an organization's subscriptions never move to another).
  `CREATE FUNCTION webhook_subscription_changed() RETURNS trigger
   LANGUAGE plpgsql
   SET search_path FROM CURRENT
   AS $$
   BEGIN
     PERFORM pg_notify('tidings_api_keys', json_build_array(TG_TABLE_SCHEMA,
       CASE WHEN TG_OP = 'INSERT' THEN NEW.organization_id ELSE OLD.organization_id END)::text);
     RETURN NULL;
   END
   $$`,
  `CREATE TRIGGER webhook_subscription_changed AFTER INSERT OR UPDATE OR DELETE
   ON webhook_subscriptions FOR EACH ROW EXECUTE FUNCTION webhook_subscription_changed()`,
  `CREATE TRIGGER webhook_subscriptions_emptied AFTER TRUNCATE ON webhook_subscriptions
   FOR EACH STATEMENT EXECUTE FUNCTION api_keys_emptied()`,
];
