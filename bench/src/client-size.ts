// What @tidings/client adds to an application's bundle: esbuild bundles and minifies it for the
// browser as an application's bundler would, and zlib gzips the result (level 9). Types are
// erased at compile time, so they cost nothing here. Target: under 8 kB minified and gzipped.
// Run: pnpm --filter @tidings/bench client-size
import { gzipSync } from "node:zlib";
import { build } from "esbuild";
import { describeMachine, machineLine } from "./harness/machine.js";
import { int, table, verdict } from "./harness/markdown.js";
import { writeSection } from "./harness/results.js";

const CLIENT = new URL("../../packages/client/src/index.ts", import.meta.url).pathname;
const TARGET_BYTES = 8 * 1024;

/** What an application imports, and so what its bundler keeps. */
const CASES: Array<[string, string]> = [
  ["everything (`export *`)", `export * from ${JSON.stringify(CLIENT)};`],
  [
    "`Tidings` and `TidingsError`",
    `export { Tidings, TidingsError } from ${JSON.stringify(CLIENT)};`,
  ],
  [
    "`verifyWebhook` alone (a receiver)",
    `export { verifyWebhook } from ${JSON.stringify(CLIENT)};`,
  ],
];

async function measure(source: string): Promise<{ minified: number; gzipped: number }> {
  const result = await build({
    stdin: { contents: source, resolveDir: process.cwd(), loader: "ts" },
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    write: false,
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length };
}

const rows: Array<Array<string | number>> = [];
let whole = 0;
for (const [name, source] of CASES) {
  const { minified, gzipped } = await measure(source);
  whole ||= gzipped;
  console.log(`${name}: ${minified} B minified, ${gzipped} B gzipped`);
  rows.push([name, int(minified), int(gzipped)]);
}
writeSection(
  "client-size",
  [
    "## Client size",
    "",
    machineLine(describeMachine(), "pnpm --filter @tidings/bench client-size"),
    "",
    "`@tidings/client` from its sources, bundled and minified by esbuild for the browser (ES2022, ESM) as an application's bundler would, gzipped by zlib at level 9. It has no dependency, so this is everything it adds; types are erased and add nothing.",
    "",
    table(["Imported", "minified bytes", "minified + gzipped bytes"], rows),
    "",
    `Target: the whole client under 8 kB (${int(TARGET_BYTES)} bytes) minified and gzipped — ${verdict(whole < TARGET_BYTES)} at ${int(whole)} bytes.`,
  ].join("\n"),
);
console.log("client-size: wrote bench/RESULTS.md");
