import type { Writable } from "node:stream";
import type { DomainError } from "@tidings/core";

/** Writes a command's answer: one JSON document with `--json`, the human text otherwise. */
export function writeResult(out: Writable, json: boolean, document: unknown, human: string): void {
  out.write(json ? `${JSON.stringify(document, null, 2)}\n` : `${human}\n`);
}

/** The error as a JSON document: its code, message and, for validation, every issue. */
function errorDocument(error: DomainError): { error: Record<string, unknown> } {
  const { type: _type, ...rest } = error;
  return { error: rest };
}

/** The error for a person: the message, then one line per issue or conflict. */
function describeError(error: DomainError): string {
  const lines = [`error: ${error.message} (${error.code})`];
  if ("issues" in error && error.issues) {
    for (const issue of error.issues) lines.push(`  ${issue.path}: ${issue.message}`);
  }
  if ("conflicts" in error && error.conflicts) {
    for (const conflict of error.conflicts) lines.push(`  ${conflict.id}: ${conflict.reason}`);
  }
  return lines.join("\n");
}

/** Writes a failure to stderr: JSON with `--json`, text otherwise. */
export function writeError(err: Writable, json: boolean, error: DomainError): void {
  err.write(json ? `${JSON.stringify(errorDocument(error))}\n` : `${describeError(error)}\n`);
}

/** Writes a problem that is not a domain error (usage, configuration, I/O) to stderr. */
export function writeProblem(err: Writable, json: boolean, code: string, message: string): void {
  err.write(json ? `${JSON.stringify({ error: { code, message } })}\n` : `error: ${message}\n`);
}

/**
 * Records as lines for a person. On a terminal: a table with a header, columns aligned. Off
 * one (a pipe, a file): one tab-separated line per record and no header, for `cut` and `awk`.
 */
export function table(
  out: { isTTY?: boolean | undefined },
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
): string {
  if (out.isTTY !== true) return rows.map((row) => row.join("\t")).join("\n");
  const widths = header.map((title, i) =>
    Math.max(title.length, ...rows.map((row) => (row[i] ?? "").length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join("  ")
      .trimEnd();
  return [line(header), ...rows.map(line)].join("\n");
}
