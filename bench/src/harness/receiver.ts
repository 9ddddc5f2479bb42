import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

/** The receiver process, seen from the benchmark. */
export interface Receiver {
  url: string;
  setMode(mode: "ok" | "half" | "fail"): void;
  reset(): void;
  /** Distinct deliveries answered 200 so far, and requests seen. */
  count(): Promise<{ received: number; requests: number }>;
  /** Receipt time (performance wall-clock ms) of every delivery id answered 200. */
  report(): Promise<{ receipts: Map<string, number>; requests: number; failedAnswers: number }>;
  close(): Promise<void>;
}

/** Starts the receiver in its own process, as a real receiver would be. */
export function startReceiver(): Promise<Receiver> {
  const worker = fork(fileURLToPath(new URL("./receiver-main.ts", import.meta.url)), {
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const ask = <T>(type: string): Promise<T> =>
    new Promise((resolve) => {
      const onMessage = (message: { type: string }) => {
        if (message.type !== type) return;
        worker.off("message", onMessage);
        resolve(message as T);
      };
      worker.on("message", onMessage);
      worker.send({ type });
    });
  return new Promise((resolve, reject) => {
    worker.once("error", reject);
    worker.once("message", (message: { port: number }) => {
      resolve({
        url: `http://127.0.0.1:${message.port}/hooks`,
        setMode: (mode) => worker.send({ type: "mode", mode }),
        reset: () => worker.send({ type: "reset" }),
        count: () => ask("count"),
        report: async () => {
          const r = await ask<{
            receipts: Array<[string, number]>;
            requests: number;
            failedAnswers: number;
          }>("report");
          return {
            receipts: new Map(r.receipts),
            requests: r.requests,
            failedAnswers: r.failedAnswers,
          };
        },
        close: async () => {
          worker.send({ type: "close" });
          await new Promise((done) => worker.once("exit", done));
        },
      });
    });
  });
}
