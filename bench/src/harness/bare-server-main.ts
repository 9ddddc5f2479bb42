// The bare node:http server, run in its own process by bare-server.ts: the ceiling every
// Tidings figure is compared with. It reads the request body and answers a fixed JSON reply
// per route, doing nothing else.
import { createServer } from "node:http";
import type { BareReply } from "./bare-server.js";

process.once("message", (message: { routes: Record<string, BareReply> }) => {
  const routes = new Map(Object.entries(message.routes));
  const fallback: BareReply = { status: 404, body: "{}" };
  const server = createServer((req, res) => {
    const path = req.url ?? "/";
    const cut = path.search(/[?]/);
    const key = `${req.method} ${cut < 0 ? path : path.slice(0, cut)}`;
    const reply = routes.get(key) ?? routes.get(`${req.method} *`) ?? fallback;
    req.on("data", () => undefined);
    req.on("end", () => {
      res.writeHead(reply.status, {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(reply.body),
      });
      res.end(reply.body);
    });
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, "127.0.0.1", () => {
    const address = server.address();
    const port = typeof address === "object" && address !== null ? address.port : 0;
    process.send?.({ port });
  });
});
