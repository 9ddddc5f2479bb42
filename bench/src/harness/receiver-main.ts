// The webhook receiver of the webhook benchmarks, in its own process: answers at once, 200, or
// (in `half` mode) 500 to every other request, or (in `fail` mode) 500 to every request a few
// ms late, and notes when each delivery id first got a 200.
import { createServer } from "node:http";

type Mode = "ok" | "half" | "fail";
let mode: Mode = "ok";
let requests = 0;
let failedAnswers = 0;
const received = new Map<string, number>();
const now = () => performance.timeOrigin + performance.now();

const server = createServer((req, res) => {
  const at = now();
  req.on("data", () => undefined);
  req.on("end", () => {
    requests += 1;
    if (mode === "fail") {
      // A few ms late, so an attempt lasts past a retry window of 1 ms and is its last.
      failedAnswers += 1;
      setTimeout(() => {
        res.writeHead(500, { "content-length": "0" });
        res.end();
      }, 3);
      return;
    }
    if (mode === "half" && requests % 2 === 0) {
      failedAnswers += 1;
      res.writeHead(500, { "content-length": "0" });
      res.end();
      return;
    }
    const id = req.headers["x-service-delivery-id"];
    if (typeof id === "string" && !received.has(id)) received.set(id, at);
    res.writeHead(200, { "content-length": "0" });
    res.end();
  });
});
server.keepAliveTimeout = 65_000;

process.on("message", (message: { type: string; mode?: Mode }) => {
  if (message.type === "mode" && message.mode) mode = message.mode;
  if (message.type === "reset") {
    received.clear();
    requests = 0;
    failedAnswers = 0;
  }
  if (message.type === "count")
    process.send?.({ type: "count", received: received.size, requests });
  if (message.type === "report") {
    process.send?.({ type: "report", receipts: [...received], requests, failedAnswers });
  }
  if (message.type === "close") server.close(() => process.exit(0));
});

server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  process.send?.({
    type: "listening",
    port: typeof address === "object" && address ? address.port : 0,
  });
});
