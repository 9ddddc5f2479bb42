// Test support: the commands a document gives, and what is wrong with them as written. A
// command is a line of a ```sh block (with its `\` continuations) or an inline code span that
// starts like one (`pnpm …`, `curl …`, `TIDINGS_X=… pnpm …`). The checks catch the drift that
// running the quickstart cannot: a variable the quickstart never sets, an environment variable
// the program run does not read, a file, script, command or option that does not exist.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS } from "../cli/help.js";

/** One command of a document. */
export interface DocCommand {
  /** The document, relative to the repository's root. */
  doc: string;
  text: string;
  /** An inline code span, rather than a line of a ```sh block. */
  inline: boolean;
}

const FENCE = /^```(\w*)\n([\s\S]*?)^```$/gm;

/** The word a command starts with, after any `NAME=value` before it. */
const COMMAND_START =
  /^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:pnpm|npm|npx|node|curl|tidings|kill|printf|rm)(?:\s|$)/;

/** The ```sh blocks of a document, each as its commands (continuations joined). */
export function shBlocks(markdown: string): string[][] {
  return [...markdown.matchAll(FENCE)]
    .filter((match) => match[1] === "sh")
    .map((match) =>
      (match[2] ?? "")
        .replace(/\\\n\s*/g, " ")
        .split("\n")
        // A comment after a command, or a line of its own.
        .map((line) => line.replace(/(^|\s+)#\s.*$/, "").trim())
        .filter((line) => line !== ""),
    );
}

/** The ```ts blocks of a document. */
export const tsBlocks = (markdown: string): string[] =>
  [...markdown.matchAll(FENCE)].filter((m) => m[1] === "ts").map((m) => m[2] ?? "");

/** Every command of a document: the lines of its ```sh blocks and its inline commands. */
export function commandsOf(doc: string, markdown: string): DocCommand[] {
  const fromBlocks = shBlocks(markdown)
    .flat()
    .map((text) => ({ doc, text, inline: false }));
  const prose = markdown.replace(FENCE, "");
  const inline = [...prose.matchAll(/`([^`\n]+)`/g)]
    .map((match) => (match[1] ?? "").trim())
    // A synopsis (`tidings <command> --help`, `serve [--port N]`) is no command to run.
    .filter((text) => COMMAND_START.test(text) && !/[<[]/.test(text))
    .map((text) => ({ doc, text, inline: true }));
  return [...fromBlocks, ...inline];
}

/** The shell variables the blocks assign (`NAME=…` at the start of a line). */
export const variablesSet = (blocks: readonly string[][]): Set<string> =>
  new Set(
    blocks.flat().flatMap((line) => {
      const name = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(line)?.[1];
      return name === undefined ? [] : [name];
    }),
  );

/** What the checks compare a command against. */
export interface Repository {
  root: string;
  /** Shell variables a reader has set by then (the quickstart's). */
  variables: ReadonlySet<string>;
}

const sourcesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => /\.tsx?$/.test(file) && !/\.test(-d)?\.tsx?$/.test(file))
    .filter((file) => !file.split(/[\\/]/).some((part) => part === "node_modules"))
    .map((file) => readFileSync(join(dir, file), "utf8"));

const cache = new Map<string, string>();
/** The source text of a program, every non-test TypeScript file of it, joined. */
function sourceOf(root: string, dir: string): string {
  const key = join(root, dir);
  let text = cache.get(key);
  if (text === undefined) {
    text = sourcesUnder(key).join("\n");
    cache.set(key, text);
  }
  return text;
}

const TOP_LEVEL_OPTIONS = ["json", "help", "env-file", "version"];

/** The problems of a `tidings …` invocation: its words name no command, or an option it lacks. */
function tidingsProblems(words: readonly string[]): string[] {
  const named = words.filter((word) => !word.startsWith("-"));
  let best: (typeof COMMANDS)[number] | undefined;
  for (const command of COMMANDS) {
    if (command.name.every((word, i) => named[i] === word)) {
      if (best === undefined || command.name.length > best.name.length) best = command;
    }
  }
  const flags = words
    .filter((word) => word.startsWith("--"))
    .map((word) => word.slice(2).split("=")[0] ?? "");
  if (best === undefined) {
    const stray = flags.filter((flag) => !TOP_LEVEL_OPTIONS.includes(flag));
    return named.length > 0 || stray.length > 0
      ? [`\`tidings ${words.join(" ")}\` names no command`]
      : [];
  }
  const own = best;
  return flags
    .filter((flag) => !(flag in own.options) && !TOP_LEVEL_OPTIONS.includes(flag))
    .map((flag) => `\`tidings ${own.name.join(" ")}\` has no option --${flag}`);
}

/** The words of one simple command (up to a pipe, `&&`, `;` or the end of a substitution). */
const simpleCommands = (text: string): string[][] =>
  text
    .replace(/'[^']*'/g, "''")
    .split(/\|\||&&|[|;()]|\$\(/)
    .map((part) =>
      part
        .trim()
        .split(/\s+/)
        .filter((word) => word !== "" && word !== "&"),
    )
    .filter((words) => words.length > 0);

/** What is wrong with one command as written; nothing when it is fine. */
export function commandProblems(command: DocCommand, repository: Repository): string[] {
  const { root, variables } = repository;
  const problems: string[] = [];
  const unquoted = command.text.replace(/'[^']*'/g, "''");
  for (const match of unquoted.matchAll(/\$\{?([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const name = match[1] ?? "";
    if (!variables.has(name)) problems.push(`$${name} is set by no command before it`);
  }
  if (!command.inline && command.text.includes("…")) {
    problems.push("a ```sh block is pasted as written, so it holds no placeholder (…)");
  }
  for (const path of command.text.match(/(?<![\w/.-])(?:examples|packages)\/[\w./-]+/g) ?? []) {
    if (!path.includes("/dist/") && !existsSync(join(root, path))) {
      problems.push(`${path} does not exist`);
    }
  }
  const scripts = (
    JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
      scripts: Record<string, string>;
    }
  ).scripts;
  for (const words of simpleCommands(command.text)) {
    const assigned: string[] = [];
    while (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] ?? "")) {
      assigned.push((words.shift() ?? "").split("=")[0] ?? "");
    }
    // `NAME=$(…)` sets a shell variable; only `NAME=… command` passes one to a program.
    if (words.length === 0) continue;
    let rest = words;
    // What runs: `tidings`, `pnpm --silent tidings`, `pnpm start`, `node …/bin.js`, an example.
    let program: string | null = null;
    if (rest[0] === "pnpm") {
      rest = rest.slice(1).filter((word) => word !== "--silent");
      const script = rest[0] ?? "";
      if (script === "exec") {
        rest = rest.slice(1);
      } else if (!script.startsWith("-") && !["install", "i", "add"].includes(script)) {
        if (!(script in scripts)) problems.push(`pnpm has no script ${script}`);
        if (script === "start") program = "packages/server/src";
        if (script === "tidings") {
          program = "packages/server/src";
          problems.push(...tidingsProblems(rest.slice(1)));
        }
      }
    } else if (rest[0] === "tidings") {
      program = "packages/server/src";
      problems.push(...tidingsProblems(rest.slice(1)));
    }
    const example = rest.join(" ").match(/examples\/([\w-]+)\//)?.[1];
    if (example !== undefined) program = `examples/${example}`;
    const bin = rest.findIndex((word) => /packages\/server\/(dist|src)\/bin\.[jt]s$/.test(word));
    if (bin !== -1) {
      program = "packages/server/src";
      problems.push(...tidingsProblems(rest.slice(bin + 1)));
    }
    for (const name of assigned) {
      if (program === null) {
        problems.push(`${name} is set for a command that reads no settings`);
      } else if (!new RegExp(`\\b${name}\\b`).test(sourceOf(root, program))) {
        problems.push(`${name} is read by nothing in ${program}`);
      }
    }
  }
  return problems;
}

/**
 * The environment variables a document's commands pass (`NAME=… command`), which its ```ts
 * snippets may read as `process.env.NAME`.
 */
export const variablesPassed = (commands: readonly DocCommand[]): Set<string> =>
  new Set(
    commands.flatMap((command) =>
      simpleCommands(command.text).flatMap((words) => {
        const end = words.findIndex((word) => !/^[A-Za-z_]\w*=/.test(word));
        // `NAME=value` alone sets a shell variable, which no program sees.
        return end === -1 ? [] : words.slice(0, end).map((word) => word.split("=")[0] ?? "");
      }),
    ),
  );
