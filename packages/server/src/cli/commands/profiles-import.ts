import type { ImportRow, ImportSummary, Issue } from "@tidings/core";
import { importProfiles } from "@tidings/core";
import { err, ok } from "neverthrow";
import { importProgress } from "../../import/progress.js";
import { detectFormat, mustRead, readRows } from "../../import/read-rows.js";
import { type Command, ORG_OPTION } from "../command.js";
import { UsageError } from "../usage-error.js";
import { findOrganization } from "./organization.js";

const SOURCES = ["import", "shopify", "woocommerce"] as const;
type Source = (typeof SOURCES)[number];

/** The summary as printed: rejected rows carry the line of the file they start on. */
export interface ImportReport {
  file: string;
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  rejected: Array<{ line: number; issues: Issue[] }>;
}

/** "1 row", "2 rows". */
const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? "" : "s"}`;

const humanReport = (report: ImportReport): string => {
  const lines = [
    `${count(report.rows, "row")} from ${report.file}: ${report.created} created, ${report.updated} updated, ` +
      `${report.unchanged} unchanged, ${report.rejected.length} rejected.`,
  ];
  for (const { line, issues } of report.rejected) {
    lines.push(`  line ${line}: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`);
  }
  return lines.join("\n");
};

/**
 * `profiles import --org ORG --source S --file F`: reads the whole file first (a row that
 * cannot be read is reported like an invalid one), then hands every row to the core, which
 * writes all valid rows in one transaction: an interrupted import leaves nothing behind.
 */
export const profilesImport: Command = {
  name: ["profiles", "import"],
  summary: "Import profiles from a CSV (with a header row) or JSON lines file.",
  usage: "--org ORG --file FILE [--source import|shopify|woocommerce]",
  options: {
    org: ORG_OPTION,
    source: {
      type: "string",
      value: "import|shopify|woocommerce",
      help: "Where the profiles come from; shopify and woocommerce profiles cannot then be changed through the API.",
    },
    file: {
      type: "string",
      help: "A CSV file with a header row, or JSON lines; fields named as in the API.",
    },
  },
  required: ["org", "file"],
  validate(flags) {
    const source = flags.source ?? "import";
    if (!SOURCES.includes(source as Source)) {
      throw new UsageError(
        `--source must be one of ${SOURCES.join(", ")}, not ${JSON.stringify(source)}.`,
      );
    }
  },
  async run(context) {
    const source = (context.flags.source ?? "import") as Source;
    const org = await findOrganization(context);
    if (org.isErr()) return err(org.error);
    const file = String(context.flags.file);
    await mustRead(file);
    const progress = await importProgress(file, context.io.stderr, !context.json);
    const rows: ImportRow[] = [];
    const unreadable: ImportSummary["rejected"] = [];
    try {
      for await (const entry of readRows(file, await detectFormat(file))) {
        progress.tick();
        if ("error" in entry)
          unreadable.push({ row: entry.row, issues: [{ path: "line", message: entry.error }] });
        else rows.push({ row: entry.row, data: entry.data });
      }
    } catch (error) {
      // A file that cannot be imported at all (no phone_number column) fails the command once.
      progress.finish("Nothing was imported.");
      throw error;
    }
    progress.finish(`Importing ${count(rows.length, "row")}…`);
    const actor = { organizationId: org.value, apiKeyId: null };
    const imported = await importProfiles(context.runtime.deps, actor, rows, { source });
    if (imported.isErr()) return err(imported.error);
    const summary = imported.value;
    const report: ImportReport = {
      file,
      rows: rows.length + unreadable.length,
      created: summary.created,
      updated: summary.updated,
      unchanged: summary.unchanged,
      rejected: [...unreadable, ...summary.rejected]
        .sort((a, b) => a.row - b.row)
        .map(({ row, issues }) => ({ line: row, issues })),
    };
    return ok({ json: report, human: humanReport(report) });
  },
};
