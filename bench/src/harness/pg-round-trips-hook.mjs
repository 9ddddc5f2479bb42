// Loaded with `node --import` into `tidings serve` and into the PostgreSQL peer by the http
// benchmark on PostgreSQL: counts the process's round trips to PostgreSQL and writes the count
// to BENCH_PG_ROUND_TRIPS_FILE ten times a second. A round trip is one call of pg's
// `Client#query`, `pool.query` included (it borrows a client and calls it once): each call sends
// its messages and then waits for the server's one ReadyForQuery before the client sends the
// next, whether it is a plain `BEGIN`, a parameterized statement (Parse/Bind/Execute, one Sync)
// or Tidings' `BEGIN` sent together with a transaction's first statement under one Sync.
// Opening a connection (its startup and authentication) is not counted.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const file = process.env.BENCH_PG_ROUND_TRIPS_FILE;
// The process's own copy of pg, the one its pool is made of.
const pg = createRequire(process.env.BENCH_PG_ROUND_TRIPS_FROM)("pg");
let count = 0;
const { query } = pg.Client.prototype;
pg.Client.prototype.query = function (...args) {
  count += 1;
  return query.apply(this, args);
};
let written = -1;
const write = () => {
  if (count === written) return;
  writeFileSync(file, String(count));
  written = count;
};
write();
setInterval(write, 100).unref();
