// @tidings/server: the composition root and the `tidings` command line.

export type { CliIo, Command, CommandContext, CommandOutcome } from "./cli/command.js";
export { EXIT, main } from "./cli/main.js";
export type { DatabaseConfig, LogLevel, ServerConfig } from "./config.js";
export { CONFIG_DEFAULTS, parseDatabaseUrl, readConfig } from "./config.js";
export type { LogFields, Logger } from "./logger.js";
export { createLogger } from "./logger.js";
export type { Runtime, RuntimeOptions } from "./runtime/runtime.js";
export { openRuntime, tidingsConfig } from "./runtime/runtime.js";
export { ConfigError, loadSecretKey } from "./secret-key.js";
