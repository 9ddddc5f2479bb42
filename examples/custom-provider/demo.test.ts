import { describe, expect, it } from "vitest";
import { runDemo } from "./demo.js";

describe("a custom ChannelProvider", () => {
  it("falls back to SMS, reports delivery, and fails a refused number", async () => {
    const lines: string[] = [];
    const sends = await runDemo((line) => lines.push(line));
    expect(lines).toEqual(["SMS from Demo to +14155550101: Your Demo code is 482913"]);
    expect(sends).toEqual([
      { phone: "+14155550101", status: "sent", topics: ["message.sent", "message.delivered"] },
      { phone: "+14155550102", status: "failed", topics: ["message.sent", "message.failed"] },
    ]);
  });
});
