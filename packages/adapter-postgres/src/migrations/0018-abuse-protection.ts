/**
 * Abuse protection. Each organization's settings (no row means the defaults), announced like a
 * campaign's change (version 11) under the organization's id so every process forgets what it
 * kept; a campaign's own narrower list of countries (NULL: the organization's); and the counters
 * of the per-destination limits, in UNLOGGED tables: they write no WAL, and a crash (or a
 * failover to a replica) forgets their counts, which only ever lets a few more sends through.
 * One row per counted send for the sliding windows of a number or a prefix, one total per
 * country for its UTC day. Counter keys hold a keyed hash of a number, never the number.
 *
 * `send_hit` is a send's whole check in one statement, so one round trip, like `rate_limit_hit`
 * before it: it takes each destination counter's lock (in a fixed order, before the key's, so
 * two sends never wait on each other in a circle), refuses when a counter is full without
 * counting anything, else makes the key's hit through `rate_limit_hit`, and counts the
 * destinations only when the key allowed the send.
 */
export const abuseProtection: readonly string[] = [
  `CREATE TABLE organization_settings (
    organization_id TEXT COLLATE "C" PRIMARY KEY REFERENCES organizations (id),
    allowed_countries JSONB,
    blocked_number_types JSONB NOT NULL,
    destination_limits JSONB NOT NULL,
    prefix_limits JSONB NOT NULL,
    country_daily_limits JSONB NOT NULL,
    updated_at TEXT COLLATE "C" NOT NULL
  )`,
  `CREATE FUNCTION organization_settings_changed() RETURNS trigger
   LANGUAGE plpgsql
   SET search_path FROM CURRENT
   AS $$
   BEGIN
     PERFORM pg_notify('tidings_api_keys', json_build_array(TG_TABLE_SCHEMA,
       CASE WHEN TG_OP = 'INSERT' THEN NEW.organization_id ELSE OLD.organization_id END)::text);
     RETURN NULL;
   END
   $$`,
  `CREATE TRIGGER organization_settings_changed AFTER INSERT OR UPDATE OR DELETE
   ON organization_settings FOR EACH ROW EXECUTE FUNCTION organization_settings_changed()`,
  `CREATE TRIGGER organization_settings_emptied AFTER TRUNCATE ON organization_settings
   FOR EACH STATEMENT EXECUTE FUNCTION api_keys_emptied()`,
  "ALTER TABLE campaigns ADD COLUMN allowed_countries JSONB",
  `CREATE UNLOGGED TABLE destination_hits (
    key TEXT COLLATE "C" NOT NULL,
    at BIGINT NOT NULL
  )`,
  "CREATE INDEX destination_hits_key_at ON destination_hits (key, at)",
  `CREATE UNLOGGED TABLE destination_totals (
    key TEXT COLLATE "C" PRIMARY KEY,
    n BIGINT NOT NULL,
    until BIGINT NOT NULL
  )`,
  // counters: a JSON array of {"k": key, "w": [[window_ms, limit], …]} (sliding windows) or
  // {"k": key, "t": [limit, until]} (a total until a time), in the caller's order.
  `CREATE FUNCTION send_hit(
     lock_space TEXT, hit_key TEXT, window_start BIGINT, hit_at BIGINT, hit_limit BIGINT,
     commit_async BOOLEAN, counters TEXT)
   RETURNS TABLE (refused_by INTEGER, wait_ms BIGINT, hits BIGINT, oldest BIGINT, leaving BIGINT)
   LANGUAGE plpgsql VOLATILE
   SET search_path FROM CURRENT
   AS $$
   DECLARE
     list JSONB := counters::jsonb;
     c JSONB;
     w JSONB;
     i INTEGER := 0;
     n BIGINT;
     total_until BIGINT;
     gone BIGINT;
     wait BIGINT;
     reset BIGINT;
   BEGIN
     IF commit_async THEN
       PERFORM set_config('synchronous_commit', 'off', true);
     END IF;
     PERFORM pg_advisory_xact_lock(hashtext(lock_space || ':destinations'), hashtext(k))
       FROM (SELECT DISTINCT e->>'k' AS k FROM jsonb_array_elements(list) e) keys
       ORDER BY hashtext(k), k;
     FOR c IN SELECT value FROM jsonb_array_elements(list) LOOP
       wait := NULL;
       IF c ? 'w' THEN
         DELETE FROM destination_hits d WHERE d.key = c->>'k'
           AND d.at <= hit_at - (SELECT max((x->>0)::bigint) FROM jsonb_array_elements(c->'w') x);
         FOR w IN SELECT value FROM jsonb_array_elements(c->'w') LOOP
           SELECT count(*) INTO n FROM destination_hits d
             WHERE d.key = c->>'k' AND d.at > hit_at - (w->>0)::bigint;
           IF n >= (w->>1)::bigint THEN
             SELECT d.at INTO gone FROM destination_hits d
               WHERE d.key = c->>'k' AND d.at > hit_at - (w->>0)::bigint
               ORDER BY d.at OFFSET n - (w->>1)::bigint LIMIT 1;
             reset := greatest(1, coalesce(gone, hit_at) + (w->>0)::bigint - hit_at);
             wait := greatest(coalesce(wait, 0), reset);
           END IF;
         END LOOP;
       ELSE
         SELECT t.n, t.until INTO n, total_until FROM destination_totals t WHERE t.key = c->>'k';
         IF total_until > hit_at AND n >= (c->'t'->>0)::bigint THEN
           wait := total_until - hit_at;
         END IF;
       END IF;
       IF wait IS NOT NULL THEN
         refused_by := i;
         wait_ms := wait;
         RETURN NEXT;
         RETURN;
       END IF;
       i := i + 1;
     END LOOP;
     SELECT r.hits, r.oldest, r.leaving INTO hits, oldest, leaving
       FROM rate_limit_hit(lock_space, hit_key, window_start, hit_at, hit_limit, commit_async) r;
     IF hits < hit_limit THEN
       INSERT INTO destination_hits (key, at)
         SELECT e->>'k', hit_at FROM jsonb_array_elements(list) e WHERE e ? 'w';
       INSERT INTO destination_totals AS t (key, n, until)
         SELECT e->>'k', 1, (e->'t'->>1)::bigint FROM jsonb_array_elements(list) e WHERE e ? 't'
         ON CONFLICT (key) DO UPDATE SET
           n = CASE WHEN t.until > hit_at THEN t.n + 1 ELSE 1 END,
           until = EXCLUDED.until;
     END IF;
     RETURN NEXT;
   END
   $$`,
];
