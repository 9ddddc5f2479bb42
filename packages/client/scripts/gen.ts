// pnpm --filter @tidings/client gen: rewrites src/generated/api.ts from the server's routes.
import { writeFileSync } from "node:fs";
import { GENERATED_TYPES_PATH, generatedTypes } from "./openapi-types.js";

writeFileSync(GENERATED_TYPES_PATH, await generatedTypes());
console.log(`wrote ${GENERATED_TYPES_PATH}`);
