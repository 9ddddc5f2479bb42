/**
 * Every change to a campaign (edited, paused, deleted, the table emptied) is announced at commit
 * on the channel of the API key notices (schema version 8), `tidings_api_keys`, with the schema
 * and the campaign id as a JSON array (the id `null` for a TRUNCATE): processes that keep
 * campaigns in memory (`tidings serve`, for its sends) forget that campaign at once, whoever
 * changed it. One channel, so one listening connection, serves both: a campaign id and a key id
 * never look alike. The functions run with the schema they were created in as their search path.
 */
export const campaignChangeNotices: readonly string[] = [
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
];
