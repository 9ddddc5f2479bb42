import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROVIDER_PLUGINS } from "./provider-registry.js";
import { SERVER_SETTINGS } from "./server-settings.js";
import { REPO_ROOT } from "./testing/child-cli.js";

/** The cells of a Markdown table's rows whose first cell names variables in backticks. */
function tableRows(markdown: string): string[][] {
  return markdown
    .split("\n")
    .filter((line) => /^\|\s*`/.test(line))
    .map((line) =>
      line
        .replace(/^\||\|$/g, "")
        .split("|")
        .map((cell) => cell.trim()),
    );
}

/** A default as shown: without backticks or the parentheses that mark a description. */
const shown = (text: string): string => text.replace(/`/g, "").replace(/^\((.*)\)$/, "$1");

describe("the settings tables match the declarations", () => {
  it("docs/configuration.md lists exactly the server's settings, in order, with their defaults", () => {
    const rows = tableRows(readFileSync(join(REPO_ROOT, "docs/configuration.md"), "utf8"));
    const documented = rows.map(([name = "", fallback = ""]) => [shown(name), shown(fallback)]);
    const declared = SERVER_SETTINGS.map((s) => [s.env, shown(s.default)]);
    expect(documented).toEqual(declared);
  });

  it("docs/providers.md lists exactly each plugin's settings, and which are required", () => {
    const rows = tableRows(readFileSync(join(REPO_ROOT, "docs/providers.md"), "utf8"));
    for (const plugin of Object.values(PROVIDER_PLUGINS)) {
      const prefix = `TIDINGS_${plugin.name.toUpperCase()}_`;
      const documented = rows.flatMap(([names = "", required = ""]) =>
        [...names.matchAll(/`([A-Z0-9_]+)`/g)]
          .map((match) => match[1] ?? "")
          .filter((name) => name.startsWith(prefix))
          .map((name) => `${name} ${required.startsWith("yes") ? "required" : "optional"}`),
      );
      const declared = plugin.settings.map(
        (s) => `${s.env} ${s.required ? "required" : "optional"}`,
      );
      expect(documented.sort(), plugin.name).toEqual(declared.sort());
    }
  });
});
