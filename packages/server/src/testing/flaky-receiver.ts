import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the flaky receiver saw it, with the status it answered. */
export interface Arrival {
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
}

/** A webhook receiver on loopback, port 0, failing until told to recover. */
export interface FlakyReceiver {
  /** Its URL, with a query-string token a log must never show. */
  url: string;
  arrivals: Arrival[];
  /** From now on, answers 200. */
  recover(): void;
  close(): Promise<void>;
}

/** Starts a receiver that answers 500 (with a long body) until told to recover, then 200. */
export async function startFlakyReceiver(): Promise<FlakyReceiver> {
  const arrivals: Arrival[] = [];
  let healthy = false;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const status = healthy ? 200 : 500;
      arrivals.push({
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        status,
      });
      res.writeHead(status, { "content-type": "text/plain" });
      res.end(healthy ? "thanks" : `down for maintenance ${"z".repeat(5000)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks?token=receiver-s3cret`,
    arrivals,
    recover: () => {
      healthy = true;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
