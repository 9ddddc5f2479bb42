import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./child-cli.js";
import { run } from "./workspace-build.js";

/**
 * Type-checks `file` in `dir` as a TypeScript user of the packages would: strict, NodeNext,
 * Node's types, with `compilerOptions` added, by the workspace's `tsc`. Rejects with tsc's
 * output when the file does not type-check.
 */
export function typeCheckAsUser(
  dir: string,
  file: string,
  compilerOptions: Record<string, unknown> = {},
): Promise<void> {
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ["node"],
        ...compilerOptions,
      },
      files: [file],
    }),
  );
  const tsc = join(REPO_ROOT, "node_modules", "typescript", "bin", "tsc");
  return run(process.execPath, [tsc, "-p", "tsconfig.json"], dir);
}
