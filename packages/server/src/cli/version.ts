import type { Writable } from "node:stream";
import serverPackage from "../../package.json" with { type: "json" };

/**
 * Answers `tidings --version` (or `-v`, with or without `--json`) and says so; `false` for any
 * other command line. It needs nothing but the package's version, so `bin.ts` asks it before
 * loading the rest of the CLI.
 */
export function answerVersion(argv: readonly string[], stdout: Writable): boolean {
  const json = argv.includes("--json");
  const args = argv.filter((arg) => arg !== "--json");
  if (args.length !== 1 || (args[0] !== "--version" && args[0] !== "-v")) return false;
  const { version } = serverPackage;
  stdout.write(json ? `${JSON.stringify({ version }, null, 2)}\n` : `${version}\n`);
  return true;
}
