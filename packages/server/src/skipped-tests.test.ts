import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "./testing/child-cli.js";

// A skipped test says why (`skippedUnless` prints the reason), so a run that skips never hides
// what it did not check.

function testFiles(dir: string, into: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) testFiles(path, into);
    else if (/\.test\.tsx?$/.test(entry.name)) into.push(path);
  }
  return into;
}

it("every conditional skip of every test file states its reason", () => {
  const files = ["packages", "examples", "bench"].flatMap((dir) => testFiles(join(REPO_ROOT, dir)));
  expect(files.length).toBeGreaterThan(100);
  const silent: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(
      /\b(?:it|test|describe)\.(skipIf|runIf|skip|todo)\(([^)]*)/g,
    )) {
      const reasoned = match[1] === "skipIf" && /^\s*skippedUnless\(/.test(match[2] ?? "");
      if (!reasoned) silent.push(`${relative(REPO_ROOT, file)}: ${match[0]}`);
    }
  }
  expect(silent).toEqual([]);
});
