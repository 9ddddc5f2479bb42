import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = (pkg: string, file = "index.ts") =>
  fileURLToPath(new URL(`./packages/${pkg}/src/${file}`, import.meta.url));

// Workspace packages resolve each other's sources, so `pnpm test` needs no build first.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^@tidings\/core\/testing$/, replacement: src("core", "testing/index.ts") },
      { find: /^@tidings\/core\/sql$/, replacement: src("core", "sql/index.ts") },
      { find: /^@tidings\/core\/memory$/, replacement: src("core", "memory.ts") },
      { find: /^@tidings\/core$/, replacement: src("core") },
      { find: /^@tidings\/adapter-http$/, replacement: src("adapter-http") },
      { find: /^@tidings\/adapter-sqlite$/, replacement: src("adapter-sqlite") },
      { find: /^@tidings\/adapter-postgres$/, replacement: src("adapter-postgres") },
      {
        find: /^@tidings\/adapter-infobip\/testing$/,
        replacement: src("adapter-infobip", "testing/index.ts"),
      },
      { find: /^@tidings\/adapter-infobip$/, replacement: src("adapter-infobip") },
      {
        find: /^@tidings\/adapter-twilio\/testing$/,
        replacement: src("adapter-twilio", "testing/index.ts"),
      },
      { find: /^@tidings\/adapter-twilio$/, replacement: src("adapter-twilio") },
      {
        find: /^@tidings\/adapter-vonage\/testing$/,
        replacement: src("adapter-vonage", "testing/index.ts"),
      },
      { find: /^@tidings\/adapter-vonage$/, replacement: src("adapter-vonage") },
      {
        find: /^@tidings\/adapter-telnyx\/testing$/,
        replacement: src("adapter-telnyx", "testing/index.ts"),
      },
      { find: /^@tidings\/adapter-telnyx$/, replacement: src("adapter-telnyx") },
      { find: /^@tidings\/server$/, replacement: src("server") },
      { find: /^@tidings\/console$/, replacement: src("console") },
      { find: /^@tidings\/client$/, replacement: src("client") },
    ],
  },
  test: {
    include: ["packages/*/src/**/*.test.{ts,tsx}", "examples/**/*.test.ts", "bench/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**"],
    // Vitest's default, one worker fewer than the CPUs, is a single worker on a 2-core machine,
    // where most files wait on PostgreSQL, child processes or timers: two workers take the
    // whole suite from some 530 s to some 305 s there, with the same results. Larger machines
    // (and watch mode) keep Vitest's defaults.
    ...(availableParallelism() <= 2 ? { maxWorkers: 2 } : {}),
    // Tests that are not about a hanging database must not fail because a loaded machine made
    // a request spend more than the production default (2 s) in storage: every `tidings` a test
    // starts with this environment waits up to 10 s. The tests of the deadline itself set
    // their own value, or remove this one (faults-hang.test.ts runs with the default).
    env: { TIDINGS_STORAGE_TIMEOUT_MS: "10000" },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    typecheck: { enabled: true, include: ["packages/*/src/**/*.test-d.ts"] },
  },
});
