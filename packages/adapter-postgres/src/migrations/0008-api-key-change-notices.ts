/**
 * Every change to an API key (revoked, deleted, the table emptied) is announced on
 * `tidings_api_keys` at commit, with the schema and the key id as a JSON array (the id `null`
 * for a TRUNCATE): processes that keep verified keys in memory (`tidings serve`) forget that key
 * at once, whoever changed it, through the API, the CLI or by hand in SQL. The functions run
 * with the schema they were created in as their search path.
 */
export const apiKeyChangeNotices: readonly string[] = [
  `CREATE FUNCTION api_key_changed() RETURNS trigger
   LANGUAGE plpgsql
   SET search_path FROM CURRENT
   AS $$
   BEGIN
     PERFORM pg_notify('tidings_api_keys', json_build_array(TG_TABLE_SCHEMA, OLD.id)::text);
     RETURN NULL;
   END
   $$`,
  `CREATE TRIGGER api_key_changed AFTER UPDATE OR DELETE ON api_keys
   FOR EACH ROW EXECUTE FUNCTION api_key_changed()`,
  `CREATE FUNCTION api_keys_emptied() RETURNS trigger
   LANGUAGE plpgsql
   SET search_path FROM CURRENT
   AS $$
   BEGIN
     PERFORM pg_notify('tidings_api_keys', json_build_array(TG_TABLE_SCHEMA, NULL)::text);
     RETURN NULL;
   END
   $$`,
  `CREATE TRIGGER api_keys_emptied AFTER TRUNCATE ON api_keys
   FOR EACH STATEMENT EXECUTE FUNCTION api_keys_emptied()`,
];
