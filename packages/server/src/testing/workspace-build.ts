// Test support: the packages built as `pnpm build` builds them, but in a temporary copy of the
// workspace, so a test never writes dist/ into the working tree while other tests read it.
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { REPO_ROOT } from "./child-cli.js";

/** The workspace packages, in an order where each comes after what it imports. */
export const PACKAGES = [
  // The client imports nothing of the others, so it builds beside core.
  ["core", "client"],
  [
    "adapter-http",
    "adapter-sqlite",
    "adapter-postgres",
    "adapter-twilio",
    "adapter-infobip",
    "adapter-vonage",
    "adapter-telnyx",
  ],
  ["console"],
  ["server"],
] as const;

/** The workspace root's files every package's build reads. */
const ROOT_BUILD_FILES = ["tsconfig.base.json", "tsup.base.ts"];
/** The files that say which installed versions a build's node_modules links to. */
const LINKED_INSTALL_FILES = ["package.json", "pnpm-lock.yaml"];

/** A builder that died leaves its lock behind; after this long another may take over. */
const STALE_LOCK_MS = 10 * 60_000;
const WAIT_STEP_MS = 500;

const packageNames = (): string[] => PACKAGES.flat();

/** Every file that goes into a build, read recursively (no node_modules, no dist). */
function buildInputs(dir: string, into: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === "dist") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) buildInputs(path, into);
    else into.push(path);
  }
  return into.sort();
}

/**
 * A digest of the sources and build settings, and of the checkout: the same sources of one
 * checkout share one build. The checkout counts because the build's node_modules link into
 * it: two clones or worktrees with the same sources must not share a build whose links die
 * with one of them.
 */
function sourceDigest(): string {
  const hash = createHash("sha256").update(REPO_ROOT).update("\0");
  const files = [
    ...ROOT_BUILD_FILES.map((file) => join(REPO_ROOT, file)),
    // What the links point at: an install that changes a version changes the build.
    ...LINKED_INSTALL_FILES.map((file) => join(REPO_ROOT, file)),
    ...packageNames().flatMap((name) => buildInputs(join(REPO_ROOT, "packages", name))),
  ];
  for (const file of files) {
    hash.update(relative(REPO_ROOT, file)).update("\0").update(readFileSync(file)).update("\0");
  }
  return hash.digest("hex").slice(0, 16);
}

/**
 * Gives each copied package a node_modules of its own: every third-party entry links to the
 * one installed in the working tree, and `@tidings/*` to the copy's packages, so the copy's
 * builds import each other's fresh dist/ and never the working tree's.
 */
function linkDependencies(copy: string, name: string) {
  const real = join(REPO_ROOT, "packages", name, "node_modules");
  const own = join(copy, "packages", name, "node_modules");
  mkdirSync(own, { recursive: true });
  if (!existsSync(real)) return;
  for (const entry of readdirSync(real)) {
    if (entry === ".bin" || entry.startsWith(".")) continue;
    if (entry.startsWith("@")) {
      mkdirSync(join(own, entry));
      for (const scoped of readdirSync(join(real, entry))) {
        // Relative, so the links still hold once the finished copy is renamed into place.
        const target =
          entry === "@tidings"
            ? join("..", "..", "..", scoped)
            : realpathSync(join(real, entry, scoped));
        symlinkSync(target, join(own, entry, scoped), "dir");
      }
    } else {
      symlinkSync(realpathSync(join(real, entry)), join(own, entry), "dir");
    }
  }
}

/** Runs a command to its end; rejects with its output when it fails. */
export function run(
  command: string,
  args: string[],
  cwd: string,
  onStdout?: (chunk: string) => void,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: process.env });
    let output = "";
    const keep = (chunk: Buffer) => {
      output += chunk.toString();
    };
    child.stdout.on("data", (chunk: Buffer) => {
      keep(chunk);
      onStdout?.(chunk.toString());
    });
    child.stderr.on("data", keep);
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0
        ? resolve()
        : reject(new Error(`${command} ${args.join(" ")} in ${cwd} exited ${code}:\n${output}`)),
    );
  });
}

async function buildInto(copy: string) {
  mkdirSync(join(copy, "packages"), { recursive: true });
  for (const file of ROOT_BUILD_FILES) cpSync(join(REPO_ROOT, file), join(copy, file));
  cpSync(join(REPO_ROOT, "LICENSE"), join(copy, "LICENSE"));
  writeFileSync(join(copy, "pnpm-workspace.yaml"), "packages:\n  - packages/*\n");
  writeFileSync(
    join(copy, "package.json"),
    JSON.stringify({ name: "tidings-build", private: true, type: "module" }),
  );
  // tsup and TypeScript are the root's development dependencies.
  symlinkSync(join(REPO_ROOT, "node_modules"), join(copy, "node_modules"), "dir");
  for (const name of packageNames()) {
    cpSync(join(REPO_ROOT, "packages", name), join(copy, "packages", name), {
      recursive: true,
      filter: (source) => !/[/\\](node_modules|dist)$/.test(source),
    });
  }
  for (const name of packageNames()) linkDependencies(copy, name);
  const tsup = join(REPO_ROOT, "node_modules", "tsup", "dist", "cli-default.js");
  for (const layer of PACKAGES) {
    await Promise.all(
      layer.map((name) => run(process.execPath, [tsup], join(copy, "packages", name))),
    );
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Makes `target` once: the first caller runs `make` on a staging directory beside it, writes
 * `marker` there and renames it into place; callers at the same time (other test files,
 * other processes) wait for it under a lock directory, and later ones find it made.
 */
async function madeOnce(
  target: string,
  marker: string,
  make: (staging: string) => Promise<void>,
): Promise<void> {
  const done = join(target, marker);
  const lock = `${target}.lock`;
  // Bounded: a maker that neither finishes nor lets go of its lock fails the test.
  for (let waited = 0; waited <= 2 * STALE_LOCK_MS; waited += WAIT_STEP_MS) {
    if (existsSync(done)) return;
    try {
      mkdirSync(lock);
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? 0);
      if (age > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      await sleep(WAIT_STEP_MS);
      continue;
    }
    try {
      if (existsSync(done)) return;
      const staging = `${target}.staging-${process.pid}`;
      rmSync(staging, { recursive: true, force: true });
      rmSync(target, { recursive: true, force: true });
      await make(staging);
      writeFileSync(join(staging, marker), new Date().toISOString());
      renameSync(staging, target);
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
  throw new Error(`gave up waiting for ${target}`);
}

/**
 * A temporary copy of the workspace with every package built (ESM and `.d.ts`, as
 * `pnpm build`), shared by the tests of one source state: the first test builds it (35 s or
 * more), the others wait for it. Resolves with the copy's root.
 */
export async function builtWorkspace(): Promise<string> {
  const target = join(tmpdir(), `tidings-build-${sourceDigest()}`);
  await madeOnce(target, "BUILT", buildInto);
  return target;
}

/**
 * Every package of the shared build (`builtWorkspace`) packed with `pnpm pack`, once per build:
 * `pnpm check:packages` and the tests that install the packages take the same tarballs, which
 * the same build always packs alike, instead of starting ten `pnpm pack` each (some 10 s on
 * two cores, far more on a loaded machine). Resolves with each package's tarball by name.
 * Read them, never change them: they are shared.
 */
export async function packedWorkspace(): Promise<Record<string, string>> {
  const copy = await builtWorkspace();
  const target = join(copy, "packed");
  await madeOnce(target, "PACKED", async (staging) => {
    await packWorkspace(copy, staging);
  });
  return Object.fromEntries(packageNames().map((name) => tarballOf(copy, name, target)));
}

/** The published name of `copy`'s package `name`, and its tarball's path in `into`. */
function tarballOf(copy: string, name: string, into: string): [string, string] {
  const { name: published, version } = JSON.parse(
    readFileSync(join(copy, "packages", name, "package.json"), "utf8"),
  );
  return [published, join(into, `${published.replace("@", "").replace("/", "-")}-${version}.tgz`)];
}

/** Packs every built package of `copy` with `pnpm pack` into `into`; resolves with the tarballs. */
export async function packWorkspace(copy: string, into: string): Promise<Record<string, string>> {
  mkdirSync(into, { recursive: true });
  // Each package packs on its own (most of a `pnpm pack` is pnpm starting), all at once.
  const packed = await Promise.all(
    packageNames().map(async (name) => {
      const dir = join(copy, "packages", name);
      await run("pnpm", ["pack", "--pack-destination", into], dir);
      return tarballOf(copy, name, into);
    }),
  );
  return Object.fromEntries(packed);
}

/** The built `tidings` command, as the published package runs it, from the temporary build. */
export async function builtCli(): Promise<readonly string[]> {
  return [join(await builtWorkspace(), "packages", "server", "dist", "bin.js")];
}
