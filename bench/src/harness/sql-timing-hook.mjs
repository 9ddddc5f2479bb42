// Loaded into `tidings serve` with `node --import` when the http benchmark runs with
// BENCH_SQL_TIMING=FILE (SQLite only; pair it with BENCH_ONLY, since one server process serves
// every endpoint of a database): times every better-sqlite3 statement call and `exec`, and
// writes the statements by total time to FILE when the process exits, with how many calls took
// over a millisecond and their share of the time (a COMMIT that checkpoints the WAL, say). The
// timing wraps each call, so it adds a little to every statement; read it for shares, not
// absolute speed.
import { writeFileSync } from "node:fs";
import { createRequire } from "node:module";

const file = process.env.BENCH_SQL_TIMING_FILE;
// The server's own copy of better-sqlite3, the one its statements are prepared on.
const Database = createRequire(process.env.BENCH_SQL_TIMING_FROM)("better-sqlite3");
const totals = new Map();

const timed = (key, call) => {
  const started = process.hrtime.bigint();
  try {
    return call();
  } finally {
    const total = totals.get(key) ?? { calls: 0, ns: 0n, slow: 0, slowNs: 0n };
    const ns = process.hrtime.bigint() - started;
    total.calls += 1;
    total.ns += ns;
    if (ns > 1_000_000n) {
      total.slow += 1;
      total.slowNs += ns;
    }
    totals.set(key, total);
  }
};

const { prepare, exec } = Database.prototype;
Database.prototype.exec = function (sql) {
  return timed(`exec ${sql.replace(/\s+/g, " ").trim().slice(0, 60)}`, () => exec.call(this, sql));
};
Database.prototype.prepare = function (sql) {
  const statement = prepare.call(this, sql);
  const text = sql.replace(/\s+/g, " ").trim().slice(0, 110);
  for (const method of ["run", "get", "all", "iterate"]) {
    const original = statement[method];
    statement[method] = function (...args) {
      return timed(`${method} ${text}`, () => original.apply(this, args));
    };
  }
  return statement;
};

process.on("exit", () => {
  const rows = [...totals].sort((a, b) => Number(b[1].ns - a[1].ns));
  const all = rows.reduce((sum, [, t]) => sum + t.ns, 0n);
  const lines = rows.map(([key, t]) => {
    const ms = Number(t.ns) / 1e6;
    const share = ((100 * Number(t.ns)) / Number(all || 1n)).toFixed(1);
    const each = Number(t.ns) / 1e3 / t.calls;
    const slow = `${t.slow} over 1 ms (${((100 * Number(t.slowNs)) / Number(t.ns || 1n)).toFixed(0)}%)`;
    return `${ms.toFixed(0).padStart(7)} ms ${share.padStart(5)}% ${String(t.calls).padStart(8)} × ${each.toFixed(1).padStart(7)} µs ${slow.padStart(22)}  ${key}`;
  });
  writeFileSync(file, `${lines.join("\n")}\n`);
});
