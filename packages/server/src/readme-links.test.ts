import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { expect, it } from "vitest";
import serverPackage from "../package.json" with { type: "json" };
import { serveCommand } from "./cli/commands/serve.js";
import { REPO_ROOT } from "./testing/child-cli.js";

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to dashes. */
const anchorOf = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, "")
    .replaceAll(" ", "-");

/** Every link of a Markdown file that is not to the web: its own headings, or files beside it. */
function brokenLinks(file: string): string[] {
  const text = readFileSync(join(REPO_ROOT, file), "utf8");
  const anchorsOf = (markdown: string) =>
    new Set(
      [...markdown.replace(/^```[\s\S]*?^```$/gm, "").matchAll(/^#{1,6} (.+)$/gm)].map((match) =>
        anchorOf(match[1] ?? ""),
      ),
    );
  const broken: string[] = [];
  for (const match of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    const link = match[1] ?? "";
    if (/^(https?|mailto):/.test(link)) continue;
    const [path = "", anchor] = link.split("#");
    const target = path === "" ? file : join(dirname(file), path);
    if (!existsSync(join(REPO_ROOT, target))) {
      broken.push(`${file}: ${link}`);
      continue;
    }
    if (anchor !== undefined && target.endsWith(".md")) {
      const anchors = anchorsOf(readFileSync(join(REPO_ROOT, target), "utf8"));
      if (!anchors.has(anchor)) broken.push(`${file}: ${link} (no such heading)`);
    }
  }
  return broken;
}

it("every link of the README and of docs/ leads somewhere: a heading, a file of the repository", () => {
  const links = [...README.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? "");
  expect(links).toEqual(
    expect.arrayContaining(["#quickstart", "#operating", "DEVELOPERS.md", "LICENSE"]),
  );
  // The reference the README once held, each in a page of its own that it links.
  for (const page of ["cli", "configuration", "console", "embedding", "security", "decisions"]) {
    expect(links).toContain(`docs/${page}.md`);
  }
  const docs = readdirSync(join(REPO_ROOT, "docs"))
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/${file}`);
  const files = ["README.md", "DEVELOPERS.md", ...docs];
  expect(files.flatMap(brokenLinks)).toEqual([]);
});

it("the README's reference pages and `tidings serve --help` name the same sweeps", () => {
  const cli = readFileSync(join(REPO_ROOT, "docs/cli.md"), "utf8");
  const row = cli.split("\n").find((line) => line.startsWith("| `serve "));
  expect(row).toContain("the expiry and retention sweeps");
  expect(serveCommand.summary).toContain("the expiry and retention sweeps");
  expect(serverPackage.license).toBe("MIT");
  expect(README).toContain("[Licence: MIT](LICENSE)");
});
