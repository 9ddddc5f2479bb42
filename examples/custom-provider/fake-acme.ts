// A loopback fake of the Acme SMS gateway, for the example's tests and demo: it checks the
// API key, takes `POST /messages`, refuses numbers on its block list, answers the faults the
// provider contract asks for, and posts signed status webhooks to a message's `status_url`.
import { randomUUID } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { ContractFault } from "@tidings/core/testing";
import { acmeSignature } from "./acme-sms.js";

export interface FakeAcme {
  readonly url: string;
  /** The bodies of the sends that reached it, accepted or not. */
  readonly sends: ReadonlyArray<Record<string, unknown>>;
  answerNext(...faults: ContractFault[]): void;
  /** Posts a signed status webhook of an accepted message (by Acme's id) to its `status_url`. */
  report(id: string, status: string): Promise<number>;
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

export async function startFakeAcme(options: {
  apiKey: string;
  webhookSecret: string;
  blocked?: readonly string[];
}): Promise<FakeAcme> {
  const sends: Array<Record<string, unknown>> = [];
  const faults: ContractFault[] = [];
  const accepted = new Map<string, Record<string, unknown>>();
  const hanging = new Set<ServerResponse>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const key = req.headers.authorization === `Bearer ${options.apiKey}`;
    if (req.method === "GET" && req.url === "/account") return json(res, key ? 200 : 401, {});
    if (req.method !== "POST" || req.url !== "/messages") return json(res, 404, {});
    const body = JSON.parse(Buffer.concat(chunks).toString() || "{}") as Record<string, unknown>;
    sends.push(body);
    const fault = faults.shift();
    if (fault === "drop") return req.socket.destroy();
    if (fault === "hang") return void hanging.add(res);
    if (fault === "unauthorized" || !key) {
      return json(res, 401, { error: { code: "bad_key", message: "The API key is refused." } });
    }
    if (fault === "rate_limited") return json(res, 429, {}, { "retry-after": "0" });
    if (fault === "server_error") return json(res, 500, {});
    if (options.blocked?.includes(String(body.to))) {
      const error = { code: "blocked", message: "The number is on Acme's block list." };
      return json(res, 400, { error });
    }
    const id = randomUUID();
    accepted.set(id, body);
    return json(res, 201, { id, status: "queued" });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    sends,
    answerNext: (...next) => void faults.push(...next),
    async report(id, status) {
      const message = accepted.get(id);
      if (message === undefined) throw new Error(`fake acme: no accepted message ${id}`);
      const body = JSON.stringify({ id, status });
      const timestamp = String(Math.floor(Date.now() / 1000));
      const response = await fetch(String(message.status_url), {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-acme-timestamp": timestamp,
          "x-acme-signature": acmeSignature(options.webhookSecret, timestamp, body),
        },
        body,
      });
      return response.status;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
