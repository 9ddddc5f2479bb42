// @tidings/console: the web console, a handler mounted like the REST API.

export type { ConsoleOptions } from "./console-app.js";
export { createConsole, SESSION_COOKIE } from "./console-app.js";
export { CONTENT_SECURITY_POLICY } from "./http.js";
