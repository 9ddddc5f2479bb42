// What `.ci/run` checks about the packages as published: each is built (in a temporary copy
// of the workspace, never into the working tree), linted by publint, packed, and its types
// checked by Are the Types Wrong for ESM consumers (the packages are ESM only).
//   pnpm check:packages
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "../packages/server/src/testing/child-cli.js";
import {
  builtWorkspace,
  PACKAGES,
  packWorkspace,
  run,
} from "../packages/server/src/testing/workspace-build.js";

const bin = (...path: string[]) => join(REPO_ROOT, "node_modules", ...path);
const copy = await builtWorkspace();
const into = mkdtempSync(join(tmpdir(), "tidings-tarballs-"));
let failed = 0;
try {
  for (const name of PACKAGES.flat()) {
    try {
      await run(
        process.execPath,
        [bin("publint", "src", "cli.js"), "--strict"],
        join(copy, "packages", name),
      );
      console.log(`publint: packages/${name} passes`);
    } catch (error) {
      failed += 1;
      console.error(String(error));
    }
  }
  const tarballs = await packWorkspace(copy, into);
  for (const [name, tarball] of Object.entries(tarballs)) {
    try {
      await run(
        process.execPath,
        [bin("@arethetypeswrong", "cli", "dist", "index.js"), tarball, "--profile", "esm-only"],
        copy,
      );
      console.log(`attw: ${name} passes`);
    } catch (error) {
      failed += 1;
      console.error(String(error));
    }
  }
} finally {
  rmSync(into, { recursive: true, force: true });
}
process.exit(failed === 0 ? 0 : 1);
