import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** bench/RESULTS.md, whatever the working directory. */
export const RESULTS_PATH = fileURLToPath(new URL("../../RESULTS.md", import.meta.url));

const HEADER = `# Tidings benchmarks

Each section is rewritten by its own benchmark (\`pnpm --filter @tidings/bench <name>\`; all of
them: \`pnpm bench\`). Figures are from one run on the machine named in the section, against the
built packages (\`packages/*/dist\`), on loopback only. Ratios compare figures taken in the same
run, so they carry over between machines better than the absolute numbers do.
`;

const ORDER = [
  "http",
  "http-postgres",
  // Written by hand: what each change of the send path did to its round trips.
  "postgres-send-steps",
  // Written by hand: what abuse protection and the consent loop's checks cost a send.
  "send-path-checks",
  "webhooks",
  "webhooks-serve",
  "webhooks-serve-steps",
  "fair",
  "scale",
  "messages",
  "metrics",
  "validator",
  "client-size",
  "recovery",
];

const start = (name: string) => `<!-- bench:${name}:start -->`;
const end = (name: string) => `<!-- bench:${name}:end -->`;

/**
 * Replaces the section `name` of RESULTS.md with `markdown`, keeping every other benchmark's
 * section as it was, so one benchmark can be rerun alone.
 */
export function writeSection(name: string, markdown: string, path = RESULTS_PATH): void {
  const text = existsSync(path) ? readFileSync(path, "utf8") : HEADER;
  const sections = new Map<string, string>();
  const pattern = /<!-- bench:([a-z-]+):start -->\n([\s\S]*?)<!-- bench:\1:end -->/g;
  for (const match of text.matchAll(pattern)) sections.set(match[1]!, match[2]!);
  sections.set(name, `${markdown.trimEnd()}\n`);
  const names = [
    ...ORDER.filter((n) => sections.has(n)),
    ...[...sections.keys()].filter((n) => !ORDER.includes(n)),
  ];
  const body = names.map((n) => `${start(n)}\n${sections.get(n)}${end(n)}`).join("\n\n");
  writeFileSync(path, `${HEADER}\n${body}\n`);
}
