import { initialSchema } from "./0001-initial-schema.js";
import { retentionIndexes } from "./0002-retention.js";
import { consoleSchema } from "./0003-console.js";
import { operatorApiSchema } from "./0004-operator-api.js";
import { fairDeliverySchema } from "./0005-fair-delivery.js";
import { rateLimitCounts } from "./0006-rate-limit-counts.js";

/** Each schema version's change, in the order of the shared history. */
export const changes = [
  initialSchema,
  retentionIndexes,
  consoleSchema,
  operatorApiSchema,
  fairDeliverySchema,
  rateLimitCounts,
] as const;
