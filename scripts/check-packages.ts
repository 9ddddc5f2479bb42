// What `.ci/run` checks about the packages as published: each is built (in a temporary copy
// of the workspace, never into the working tree), linted by publint, packed, and its types
// checked by Are the Types Wrong for ESM consumers (the packages are ESM only).
//   pnpm check:packages
import { join } from "node:path";
import { REPO_ROOT } from "../packages/server/src/testing/child-cli.js";
import {
  builtWorkspace,
  PACKAGES,
  packedWorkspace,
  run,
} from "../packages/server/src/testing/workspace-build.js";

const bin = (...path: string[]) => join(REPO_ROOT, "node_modules", ...path);
const copy = await builtWorkspace();
let failed = 0;
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
// The tarballs the tests install too (made once per build), so CI packs once.
const tarballs = await packedWorkspace();
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
process.exit(failed === 0 ? 0 : 1);
