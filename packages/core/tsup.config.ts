import { packageBuild } from "../../tsup.base.js";

export default packageBuild([
  "src/index.ts",
  "src/memory.ts",
  "src/testing/index.ts",
  "src/sql/index.ts",
]);
