// The public face of `@tidings/core/testing`. Each area adds its own exports here.

export * from "./arbitraries/params.js";
export * from "./contract/index.js";
export * from "./deadlines.js";
export * from "./memory/index.js";
export * from "./model/index.js";
