import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts", "src/memory.ts", "src/testing/index.ts", "src/sql/index.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
});
