import { defineConfig, type Options } from "tsup";

/** How every package builds: ESM with declarations and source maps for Node 20, from `entry`. */
export const packageBuild = (entry: string[], options: Options = {}) =>
  defineConfig({
    entry,
    format: ["esm"],
    dts: true,
    clean: true,
    sourcemap: true,
    target: "node20",
    ...options,
  });
