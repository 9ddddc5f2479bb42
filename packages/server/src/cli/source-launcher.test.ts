import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import serverPackage from "../../package.json" with { type: "json" };
import { REPO_ROOT } from "../testing/child-cli.js";

// `pnpm tidings` runs scripts/tidings.mjs: the CLI bundled from the sources once, then reused
// until a source changes. Here it keeps its bundle in a directory of the test's own.

let cache: string;
let data: string;
beforeAll(() => {
  cache = mkdtempSync(join(tmpdir(), "tidings-cli-cache-"));
  data = mkdtempSync(join(tmpdir(), "tidings-cli-data-"));
});
afterAll(() => {
  rmSync(cache, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});

const launch = (...args: string[]) =>
  new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      ["scripts/tidings.mjs", ...args],
      {
        cwd: REPO_ROOT,
        timeout: 60_000,
        env: {
          ...process.env,
          TIDINGS_CLI_CACHE: cache,
          TIDINGS_DATABASE_URL: `sqlite:${join(data, "tidings.db")}`,
          TIDINGS_LOG_LEVEL: "warn",
        },
      },
      (error, stdout, stderr) =>
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });

const bundleBuilt = () => statSync(join(cache, "bin.mjs")).mtimeMs;

it("bundles the CLI once, reuses the bundle, and rebuilds it when a source changes", {
  timeout: 120_000,
}, async () => {
  const first = await launch("--version");
  expect(first, first.stderr).toMatchObject({ code: 0, stdout: `${serverPackage.version}\n` });
  const manifest = JSON.parse(readFileSync(join(cache, "inputs.json"), "utf8")) as {
    inputs: Record<string, number>;
  };
  // Every workspace source the CLI imports is an input, the console's pages included.
  expect(Object.keys(manifest.inputs)).toEqual(
    expect.arrayContaining([
      "packages/server/src/bin.ts",
      "packages/core/src/index.ts",
      "packages/console/src/index.ts",
      "scripts/tidings.mjs",
    ]),
  );
  const built = bundleBuilt();

  expect((await launch("--version")).code).toBe(0);
  expect(bundleBuilt()).toBe(built);

  // A source file that changed since the build (as its modification time says) rebuilds it.
  manifest.inputs["packages/core/src/index.ts"] = 1;
  writeFileSync(join(cache, "inputs.json"), JSON.stringify({ ...manifest, bundle: built }));
  const again = await launch("--version");
  expect(again.code).toBe(0);
  expect(bundleBuilt()).not.toBe(built);

  // The bundle is the whole CLI: storage, core and the admin commands work through it.
  const org = await launch("orgs", "create", "--name", "Acme", "--json");
  expect(org.code, org.stderr).toBe(0);
  const { org_id } = JSON.parse(org.stdout) as { org_id: string };
  const key = await launch(
    "keys",
    "create",
    "--org",
    org_id,
    "--scopes",
    "profiles:read",
    "--json",
  );
  expect(key.code, key.stderr).toBe(0);
  expect(JSON.parse(key.stdout)).toMatchObject({ scopes: ["profiles:read"] });
  const typo = await launch("campains", "list");
  expect(typo.code).toBe(2);
  expect(typo.stderr).toContain("did you mean campaigns list?");
});
