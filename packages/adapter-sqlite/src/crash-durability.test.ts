import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { sqliteStorage } from "./sqlite-storage.js";
import { tempDatabaseFile } from "./temp-database.js";

const writer = fileURLToPath(new URL("./crash-writer.ts", import.meta.url));

/** Runs the writer until it has acknowledged `acks` profiles, SIGKILLs it, returns every ack. */
function writeUntilKilled(path: string, acks: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", writer, path], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let buffered = "";
    let errors = "";
    child.stderr.on("data", (chunk: Buffer) => {
      errors += chunk.toString();
    });
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      if (buffered.split("\n").length > acks) child.kill("SIGKILL");
    });
    child.on("error", reject);
    child.on("close", (_code, signal) => {
      if (signal !== "SIGKILL") reject(new Error(`writer ended without being killed: ${errors}`));
      // Only complete lines are acknowledgements.
      else resolve(buffered.split("\n").slice(0, -1));
    });
  });
}

describe("durability under SIGKILL", () => {
  it("every acknowledged write survives a kill at a random moment, and no transaction is half-written", async () => {
    const file = tempDatabaseFile();
    const acknowledged: string[] = [];
    for (let round = 0; round < 3; round++) {
      const target = 20 + Math.floor(Math.random() * 300);
      const acks = await writeUntilKilled(file.path, target);
      expect(acks.length).toBeGreaterThanOrEqual(target);
      acknowledged.push(...acks);

      // Reopening after the crash works (WAL recovery, migrations already applied).
      const storage = sqliteStorage(file.path);
      await storage.ping();
      await storage.close();

      const db = new Database(file.path, { readonly: true });
      expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
      const stored = new Set(
        (db.prepare("SELECT id FROM profiles").all() as Array<{ id: string }>).map((r) => r.id),
      );
      const missing = acknowledged.filter((id) => !stored.has(id));
      expect(missing, `round ${round}, killed after ${target} acks`).toEqual([]);
      // Even-numbered profiles were written together with their consent change.
      const halfWritten = db
        .prepare(
          `SELECT p.id FROM profiles p LEFT JOIN consent_changes c ON c.profile_id = p.id
           WHERE CAST(json_extract(p.attributes, '$.i') AS INTEGER) % 2 = 0 AND c.id IS NULL`,
        )
        .all();
      expect(halfWritten).toEqual([]);
      db.close();
    }
    file.remove();
  }, 30_000);
});
