import { packageBuild } from "../../tsup.base.js";

// Runs wherever fetch and Web Crypto do (Node 20+, Bun, Deno, Workers, browsers): ES2022 with
// no Node target, so nothing Node-only is assumed.
export default packageBuild(["src/index.ts"], { target: "es2022", platform: "neutral" });
