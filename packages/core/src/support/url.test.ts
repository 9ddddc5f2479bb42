import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { parseUrl } from "./url.js";

const PACKAGES = fileURLToPath(new URL("../../../", import.meta.url));

function sourceFiles(dir: string, into: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) sourceFiles(path, into);
    else if (/\.tsx?$/.test(entry.name)) into.push(path);
  }
  return into;
}

it("a URL with a non-ASCII Latin-1 character parses on every call, also once the caller is optimized", () => {
  const url = "HTTPS://g.bücher.jp:62508/www.example.app/3IXF";
  let refused = 0;
  // Node 20's `URL.canParse` starts refusing this URL after some 5,000 calls from one place.
  for (let call = 0; call < 50_000; call += 1) {
    if (parseUrl(url) === null) refused += 1;
  }
  expect(refused).toBe(0);
  expect(parseUrl(url)?.hostname).toBe("g.xn--bcher-kva.jp");
  expect(parseUrl("not a url")).toBeNull();
});

it("no package's source calls URL.canParse (see parseUrl for why)", () => {
  const files = sourceFiles(PACKAGES);
  expect(files.length).toBeGreaterThan(100);
  const calls = files
    .filter((file) => /\bURL\.canParse\(/.test(readFileSync(file, "utf8")))
    .map((file) => relative(PACKAGES, file));
  expect(calls).toEqual([]);
});
