import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
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

it("every link of the README leads somewhere: its own headings and the repository's files", () => {
  const anchors = new Set(
    [...README.matchAll(/^#{1,6} (.+)$/gm)].map((match) => anchorOf(match[1] ?? "")),
  );
  const links = [...README.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1] ?? "");
  expect(links).toEqual(expect.arrayContaining(["#quickstart", "DEVELOPERS.md", "LICENSE"]));
  for (const link of links) {
    if (/^https?:/.test(link)) continue;
    if (link.startsWith("#")) expect(anchors, link).toContain(link.slice(1));
    else expect(existsSync(join(REPO_ROOT, link.split("#")[0] ?? "")), link).toBe(true);
  }
});

it("the README and `tidings serve --help` name the same sweeps", () => {
  const row = README.split("\n").find((line) => line.startsWith("| `serve "));
  expect(row).toContain("the expiry and retention sweeps");
  expect(serveCommand.summary).toContain("the expiry and retention sweeps");
  expect(serverPackage.license).toBe("MIT");
  expect(README).toContain("[Licence: MIT](LICENSE)");
});
