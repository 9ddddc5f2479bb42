/**
 * What a provider adapter logs, its sends and its callbacks alike (the server's JSON-lines
 * logger fits): refused credentials at error, each failed request and refused callback at warn,
 * reports that change nothing at info. Never a secret or a message's text.
 */
export interface ProviderLogger {
  error(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
}
