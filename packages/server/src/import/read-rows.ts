import { createReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { extname } from "node:path";
import { createInterface } from "node:readline";
import { parse } from "csv-parse";

/** One row of an import file: its data, or why it could not be read, with its line number. */
export type FileRow =
  | { row: number; data: Record<string, unknown> }
  | { row: number; error: string };

export type ImportFormat = "csv" | "jsonl";

/** The format by extension (`.csv`; `.jsonl`, `.ndjson`), else by the first character. */
export async function detectFormat(path: string): Promise<ImportFormat> {
  const ext = extname(path).toLowerCase();
  if (ext === ".csv") return "csv";
  if (ext === ".jsonl" || ext === ".ndjson") return "jsonl";
  const handle = await open(path, "r");
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(256), 0, 256, 0);
    return buffer.subarray(0, bytesRead).toString("utf8").trimStart().startsWith("{")
      ? "jsonl"
      : "csv";
  } finally {
    await handle.close();
  }
}

const BOOLEAN_FIELDS = new Set(["viber_marketing_consent", "sms_marketing_consent"]);
const TRUE = new Set(["true", "1", "yes", "y"]);
const FALSE = new Set(["false", "0", "no", "n"]);

/**
 * CSV cells are text: empty cells are left out, consent flags read true/false/1/0/yes/no, and
 * `attributes` holds a JSON object. Anything else stays text, so validation names the field.
 */
function fromCsvRecord(record: Record<string, string>): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [field, raw] of Object.entries(record)) {
    const cell = raw.trim();
    if (cell === "") continue;
    if (BOOLEAN_FIELDS.has(field)) {
      const lower = cell.toLowerCase();
      data[field] = TRUE.has(lower) ? true : FALSE.has(lower) ? false : cell;
    } else if (field === "attributes") {
      try {
        data[field] = JSON.parse(cell);
      } catch {
        data[field] = cell;
      }
    } else {
      data[field] = cell;
    }
  }
  return data;
}

/** Reads an import file row by row, each with the line it starts on. */
export async function* readRows(path: string, format: ImportFormat): AsyncGenerator<FileRow> {
  if (format === "jsonl") {
    const lines = createInterface({
      input: createReadStream(path, "utf8"),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    let row = 0;
    for await (const line of lines) {
      row += 1;
      if (line.trim() === "") continue;
      try {
        const data: unknown = JSON.parse(line);
        if (typeof data !== "object" || data === null || Array.isArray(data)) {
          yield { row, error: "must be a JSON object." };
        } else {
          yield { row, data: data as Record<string, unknown> };
        }
      } catch {
        yield { row, error: "is not valid JSON." };
      }
    }
    return;
  }
  const file = createReadStream(path);
  const parser = file.pipe(
    parse({
      columns: true,
      bom: true,
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: false,
    }),
  );
  // `pipe` does not forward errors: without this, an unreadable file would never end the loop.
  file.once("error", (error) => parser.destroy(error));
  for await (const entry of parser as AsyncIterable<{
    record: Record<string, string>;
    info: { lines: number };
  }>) {
    yield { row: entry.info.lines, data: fromCsvRecord(entry.record) };
  }
}
