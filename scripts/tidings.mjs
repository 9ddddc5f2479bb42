#!/usr/bin/env node
// `pnpm tidings …` from a clone: the CLI from the sources, started in a fraction of a second.
//
// Running the TypeScript sources through tsx compiles every module on each call, and Node then
// resolves and loads some 400 files: 1.5 s and more before the command starts. Instead this
// bundles the server's sources, the workspace packages and the libraries they import into one
// ES module under node_modules/.cache once (under a second), and imports that on every later
// call until a source file, this script or the install changes. Every `import.meta.url` keeps
// its source file's address, so files found relative to a module are found as before.
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Where the bundle is kept; tests point `TIDINGS_CLI_CACHE` at a directory of their own. */
const CACHE = process.env.TIDINGS_CLI_CACHE ?? join(ROOT, "node_modules", ".cache", "tidings-cli");
const BUNDLE = join(CACHE, "bin.mjs");
const MANIFEST = join(CACHE, "inputs.json");
const ENTRY = join(ROOT, "packages", "server", "src", "bin.ts");
/** Rewritten by every `pnpm install`: new versions of the packages the bundle points at. */
const INSTALL_STATE = join(ROOT, "node_modules", ".modules.yaml");

const modified = (file) => statSync(file).mtimeMs;

/** Whether the bundle was built from the sources as they are now (every input unchanged). */
function upToDate() {
  try {
    const manifest = JSON.parse(readFileSync(MANIFEST, "utf8"));
    for (const [file, mtimeMs] of Object.entries(manifest.inputs)) {
      if (modified(join(ROOT, file)) !== mtimeMs) return false;
    }
    return manifest.bundle === modified(BUNDLE);
  } catch {
    return false;
  }
}

/**
 * Libraries left out of the bundle: better-sqlite3 loads its native addon from beside itself;
 * OpenTelemetry's API is one per process, shared with the SDK loaded only when tracing is on.
 */
const UNBUNDLED = /^(better-sqlite3|@opentelemetry\/)/;

/**
 * esbuild plugin: the unbundled libraries stay imports, of the exact file esbuild resolved
 * from the importing package (a bundle under node_modules/.cache would not find them by name).
 */
const unbundledExternal = {
  name: "unbundled-external",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData?.resolving || args.path.startsWith("@tidings/")) return undefined;
      if (args.path.startsWith("node:")) return { path: args.path, external: true };
      if (!UNBUNDLED.test(args.path)) return undefined;
      const found = await build.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: { resolving: true },
      });
      // Not installed (an optional peer such as pg-native, required only when used), or a
      // Node built-in imported without `node:`: left as it is written.
      if (found.errors.length > 0 || found.external || !found.path.startsWith("/")) {
        return { path: args.path, external: true };
      }
      // An absolute path: require() takes it, and so does import on POSIX (not a URL, which
      // require() refuses).
      return { path: found.path, external: true };
    });
  },
};

/** esbuild plugin: `import.meta.url` and `dirname` keep naming each workspace source file. */
const sourceAddresses = {
  name: "source-addresses",
  setup(build) {
    build.onLoad({ filter: /[\\/]packages[\\/][^\\/]+[\\/]src[\\/].*\.tsx?$/ }, (args) => {
      const text = readFileSync(args.path, "utf8")
        .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href))
        .replaceAll("import.meta.dirname", JSON.stringify(dirname(args.path)))
        .replaceAll("import.meta.filename", JSON.stringify(args.path));
      return { contents: text, loader: args.path.endsWith(".tsx") ? "tsx" : "ts" };
    });
  },
};

/** Bundles the CLI and records what it was built from. */
async function build() {
  const { build: bundle } = await import("esbuild");
  mkdirSync(CACHE, { recursive: true });
  // Several calls may build at once: each writes its own files, then renames them into place.
  const own = `${BUNDLE}.${process.pid}`;
  const result = await bundle({
    entryPoints: [ENTRY],
    outfile: own,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    tsconfig: join(ROOT, "tsconfig.json"),
    metafile: true,
    logLevel: "error",
    // The CommonJS libraries in the bundle call require() for Node's built-ins.
    banner: {
      js: 'import { createRequire as bannerRequire } from "node:module";\nconst require = bannerRequire(import.meta.url);',
    },
    // An optional peer that is not installed (pg-native) is required only when used.
    external: ["pg-native"],
    plugins: [unbundledExternal, sourceAddresses],
  });
  const sources = Object.keys(result.metafile.inputs)
    .map((input) => join(ROOT, input))
    .filter((file) => !file.includes(`${join("node_modules")}`));
  const inputs = Object.fromEntries(
    [...sources, INSTALL_STATE, fileURLToPath(import.meta.url)].map((file) => [
      relative(ROOT, file),
      modified(file),
    ]),
  );
  renameSync(own, BUNDLE);
  const manifest = `${MANIFEST}.${process.pid}`;
  writeFileSync(manifest, JSON.stringify({ bundle: modified(BUNDLE), inputs }));
  renameSync(manifest, MANIFEST);
}

if (!upToDate()) await build();
await import(pathToFileURL(BUNDLE).href);
