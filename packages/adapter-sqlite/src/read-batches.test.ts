import { aProfile, cleanupsEach } from "@tidings/core/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { batchedReads } from "./read-connection.js";
import { sqliteStorage } from "./sqlite-storage.js";
import { recordingDatabase } from "./testing/recording-database.js";
import { tempDatabaseFile } from "./testing/temp-database.js";

const ORG = "org_00000000000000000000000001";
const cleanups = cleanupsEach();

/** A WAL file with a `notes` table, its writer, and a read-only connection that records BEGINs. */
function setup() {
  const file = tempDatabaseFile();
  const writer = new Database(file.path);
  writer.exec("PRAGMA journal_mode = WAL; CREATE TABLE notes (n INTEGER PRIMARY KEY)");
  const raw = new Database(file.path, { readonly: true });
  cleanups.push(() => {
    raw.close();
    writer.close();
    file.remove();
  });
  const { db: reader, calls, execs } = recordingDatabase(raw);
  // The batches run a prepared BEGIN; `exec` would count too, should they ever go back to it.
  const begins = () =>
    [...calls.map((call) => call.sql), ...execs].filter((sql) => sql === "BEGIN");
  const count = () => (raw.prepare("SELECT COUNT(*) AS n FROM notes").get() as { n: number }).n;
  return { writer, reader, begins, count };
}

const noRetry = <T>(call: () => T): Promise<T> => Promise.resolve(call());

describe("batched reads", () => {
  it("reads asked in one turn share one read transaction, and each gets its own answer", async () => {
    const { writer, reader, begins, count } = setup();
    writer.exec("INSERT INTO notes VALUES (1), (2)");
    const reads = batchedReads(reader, noRetry);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, k) => reads.run(() => count() + k)),
    );
    expect(answers).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(begins()).toHaveLength(1);
    expect(reader.inTransaction).toBe(false);
  });

  it("a read asked after a write committed sees it; a failing read fails alone", async () => {
    const { writer, reader, count } = setup();
    const reads = batchedReads(reader, noRetry);
    expect(await reads.run(count)).toBe(0);
    writer.exec("INSERT INTO notes VALUES (1)");
    const [seen, failed] = await Promise.allSettled([
      reads.run(count),
      reads.run(() => reader.prepare("SELECT nope FROM notes").get()),
    ]);
    expect(seen).toEqual({ status: "fulfilled", value: 1 });
    expect(failed?.status).toBe("rejected");
  });

  it("close answers the reads still waiting for their batch", async () => {
    const file = tempDatabaseFile();
    cleanups.push(() => file.remove());
    const storage = sqliteStorage(file.path);
    const profile = aProfile({ organizationId: ORG });
    await storage.profiles.insert(profile);
    const read = storage.profiles.get(ORG, profile.id);
    await storage.close();
    expect((await read)?.id).toBe(profile.id);
  });
});
