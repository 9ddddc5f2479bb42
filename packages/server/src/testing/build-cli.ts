import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { BUILT_CLI, REPO_ROOT } from "./child-cli.js";

/**
 * Builds the server and the workspace packages it depends on, as `pnpm build` does (tsup, ESM
 * and `.d.ts`), so a test can run `packages/server/dist/bin.js` even on a clean clone with no
 * dist/ yet. Resolves with how long the build took; rejects with the build's output.
 */
export async function buildCli(): Promise<{ ms: number }> {
  const started = performance.now();
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn("pnpm", ["--filter", "@tidings/server...", "build"], {
      cwd: REPO_ROOT,
      env: process.env,
    });
    let text = "";
    const keep = (chunk: Buffer) => {
      text += chunk.toString();
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    child.once("error", reject);
    child.once("close", (code) =>
      code === 0 ? resolve(text) : reject(new Error(`the build exited ${code}:\n${text}`)),
    );
  });
  const bin = join(REPO_ROOT, ...BUILT_CLI);
  if (!existsSync(bin)) throw new Error(`the build made no ${bin}:\n${output}`);
  return { ms: Math.round(performance.now() - started) };
}
