import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type FileRow, readRows } from "./read-rows.js";

const dir = mkdtempSync(join(tmpdir(), "tidings-read-rows-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
const rowsOf = async (text: string): Promise<FileRow[]> => {
  const path = join(dir, `rows-${++files}.csv`);
  writeFileSync(path, text);
  const rows: FileRow[] = [];
  for await (const row of readRows(path, "csv")) rows.push(row);
  return rows;
};

/** The line each row starts on, with its first name, for compact assertions. */
const startLines = (rows: FileRow[]) =>
  rows.map((r) => ["data" in r ? r.data.first_name : r.error, r.row]);

describe("readRows (CSV)", () => {
  it("numbers a row spanning several lines by the line it starts on", async () => {
    const rows = await rowsOf(
      [
        "phone_number,first_name,attributes",
        "+14155550101,Ada,",
        '+14155550102,Bob,"{""note"":',
        '""two lines""}"',
        "+14155550103,Cy,",
      ].join("\n"),
    );
    expect(startLines(rows)).toEqual([
      ["Ada", 2],
      ["Bob", 3],
      ["Cy", 5],
    ]);
    expect(rows[1]).toMatchObject({ data: { attributes: { note: "two lines" } } });
  });

  it("counts CRLF, CR-only and LF line ends, inside quotes too, and skipped empty lines", async () => {
    for (const eol of ["\n", "\r\n", "\r"]) {
      const rows = await rowsOf(
        [
          "",
          "phone_number,first_name,last_name",
          "",
          `+14155550101,Ada,"Love${eol}${eol}lace"`,
          "",
          "",
          "+14155550102,Bob,",
          `+14155550103,"C${eol}y",`,
          "+14155550104,Dee,",
          "",
        ].join(eol),
      );
      expect(startLines(rows), JSON.stringify(eol)).toEqual([
        ["Ada", 4],
        ["Bob", 9],
        [`C${eol}y`, 10],
        ["Dee", 12],
      ]);
    }
  });

  it("skips a byte order mark and keys cells by the header, as columns: true did", async () => {
    const rows = await rowsOf(
      "\uFEFFphone_number,first_name,first_name\n+14155550101,A,Ada,extra\n+1\n",
    );
    expect(rows).toEqual([
      { row: 2, data: { phone_number: "+14155550101", first_name: "Ada" } },
      { row: 3, data: { phone_number: "+1" } },
    ]);
  });

  it("keeps a __proto__ column as a plain field, so validation can name it", async () => {
    const rows = await rowsOf("phone_number,__proto__\n+14155550101,x\n");
    expect(rows[0]).toMatchObject({ row: 2 });
    const data = "data" in rows[0]! ? rows[0].data : {};
    expect(Object.keys(data)).toEqual(["phone_number", "__proto__"]);
  });
});
