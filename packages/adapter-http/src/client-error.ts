import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { type ProblemSpec, problemResponse } from "./problem.js";

/** What node:http hands a `clientError` listener: a parser error (`HPE_*`) or a timeout. */
export type ClientError = Error & { code?: string | undefined; reason?: string | undefined };

/**
 * The problem of a request node:http refused before it reached the app: 408 when it did not
 * arrive in time, 431 when its headers are too large, 400 for anything that is not HTTP/1.1
 * (a garbage request line, a bad header name, Content-Length with Transfer-Encoding, two
 * Content-Lengths). The detail gives llhttp's reason, never the bytes received.
 */
function clientErrorProblem(error: ClientError): ProblemSpec {
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return {
      status: 408,
      code: "request_timeout",
      detail: "The request was not received in time; the connection is closed.",
    };
  }
  if (error.code === "HPE_HEADER_OVERFLOW") {
    return {
      status: 431,
      code: "headers_too_large",
      detail: "The request headers are too large; the connection is closed.",
    };
  }
  const reason = typeof error.reason === "string" ? error.reason : (error.code ?? "unreadable");
  return {
    status: 400,
    code: "malformed_request",
    detail: `The request is not valid HTTP/1.1 (${reason.slice(0, 200)}); the connection is closed.`,
  };
}

/**
 * A `clientError` listener for node:http: answers problem+json with `Connection: close` and
 * closes the socket. When the socket is gone, or an answer to this request has already begun
 * (a timeout while the app was answering), there is nothing safe to write: it only closes.
 */
export function answerClientError(error: ClientError, socket: Duplex, requestId: string): void {
  // node:http's own handler makes the same check on the response it may have in flight.
  const inFlight = Reflect.get(socket, "_httpMessage") as { headersSent?: boolean } | null;
  if (error.code === "ECONNRESET" || !socket.writable || inFlight?.headersSent === true) {
    socket.destroy();
    return;
  }
  const { status, headers, body } = problemResponse(clientErrorProblem(error), requestId);
  const head = [
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? "Error"}`,
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    `content-length: ${Buffer.byteLength(body)}`,
    "connection: close",
  ];
  socket.end(`${head.join("\r\n")}\r\n\r\n${body}`, () => socket.destroy());
}
