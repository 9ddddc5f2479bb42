import { createReadStream } from "node:fs";
import { access, constants, open } from "node:fs/promises";
import { extname } from "node:path";
import { createInterface } from "node:readline";
import { parse } from "csv-parse";

/** The file cannot be imported at all (not one of its rows): the command fails once. */
export class ImportFileError extends Error {
  override name = "ImportFileError";
}

/** One row of an import file: its data, or why it could not be read, with its line number. */
export type FileRow =
  | { row: number; data: Record<string, unknown> }
  | { row: number; error: string };

/** Throws, naming the file and why, when `file` cannot be read (before any import starts). */
export async function mustRead(file: string): Promise<void> {
  try {
    await access(file, constants.R_OK);
  } catch (error) {
    throw new Error(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`);
  }
}

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
  // Entries, not assignments: a `__proto__` column stays a field (and is refused as unknown).
  const data: Array<[string, unknown]> = [];
  for (const [field, raw] of Object.entries(record)) {
    const cell = raw.trim();
    if (cell === "") continue;
    data.push([field, fromCsvCell(field, cell)]);
  }
  return Object.fromEntries(data);
}

function fromCsvCell(field: string, cell: string): unknown {
  if (BOOLEAN_FIELDS.has(field)) {
    const lower = cell.toLowerCase();
    return TRUE.has(lower) ? true : FALSE.has(lower) ? false : cell;
  }
  if (field === "attributes") {
    try {
      return JSON.parse(cell);
    } catch {
      return cell;
    }
  }
  return cell;
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
  // Records come as arrays with their raw text, so line numbers are counted here: csv-parse's
  // `info.lines` is the line a record ends on, and it counts a CRLF inside quotes as two.
  const parser = file.pipe(
    parse({
      columns: false,
      raw: true,
      bom: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: false,
    }),
  );
  // `pipe` does not forward errors: without this, an unreadable file would never end the loop.
  file.once("error", (error) => parser.destroy(error));
  let header: string[] | null = null;
  let line = 1;
  for await (const { record, raw } of parser as AsyncIterable<{ record: string[]; raw: string }>) {
    const start = line + lineBreaks(/^[\r\n]*/.exec(raw)?.[0] ?? "");
    line += lineBreaks(raw);
    if (header === null) {
      header = record;
      // Without it every row would be refused for the same reason, once per row.
      if (!header.some((name) => name.trim() === "phone_number")) {
        throw new ImportFileError(
          `the header row of ${path} has no phone_number column (it has ${header.map((name) => JSON.stringify(name)).join(", ")}); the first line must name the columns, phone_number among them.`,
        );
      }
      continue;
    }
    yield { row: start, data: fromCsvRecord(byColumn(header, record)) };
  }
}

/** Line breaks in `text`, counting CRLF, CR and LF each as one. */
const lineBreaks = (text: string): number => text.match(/\r\n|\r|\n/g)?.length ?? 0;

/**
 * A record as an object keyed by the header, as csv-parse's `columns: true` would build it:
 * missing cells are left out, cells past the header are ignored, a repeated name keeps the last.
 */
function byColumn(header: string[], cells: string[]): Record<string, string> {
  return Object.fromEntries(
    header.flatMap((name, i) => (cells[i] === undefined ? [] : [[name, cells[i]]])),
  );
}
