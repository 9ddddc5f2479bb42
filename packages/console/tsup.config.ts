import { cpSync } from "node:fs";
import { defineConfig } from "tsup";

export default defineConfig({
  entry: ["src/index.ts"],
  format: ["esm"],
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  // The stylesheet and the script are served from the package at run time, so they ship in dist.
  onSuccess: async () => {
    cpSync("src/assets", "dist/assets", { recursive: true });
  },
});
