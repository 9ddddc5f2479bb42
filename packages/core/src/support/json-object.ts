/** Whether a parsed JSON value is an object (not an array, not `null`): a body's fields. */
export const isJsonObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);
