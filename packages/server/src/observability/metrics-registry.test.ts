import { describe, expect, it } from "vitest";
import { parseExposition } from "../testing/scrape.js";
import { createMetrics } from "./metrics.js";

const sampleOf = (text: string, name: string) =>
  parseExposition(text).find((sample) => sample.name === name)?.value;

describe("createMetrics", () => {
  it("reads the backlog once per scrape for both gauges, and how late its oldest delivery is", async () => {
    let reads = 0;
    const metrics = createMetrics({
      now: () => Date.parse("2026-01-15T09:00:30.000Z"),
      webhookBacklog: async () => {
        reads += 1;
        return { due: 7, oldestDueAt: "2026-01-15T09:00:00.000Z" };
      },
    });
    const { body } = await metrics.render();
    expect(sampleOf(body, "tidings_webhook_backlog")).toBe(7);
    expect(sampleOf(body, "tidings_webhook_oldest_due_seconds")).toBe(30);
    expect(reads).toBe(1);
  });

  it("still answers the scrape when the backlog read fails, with the two gauges NaN", async () => {
    const metrics = createMetrics({
      webhookBacklog: () => Promise.reject(new Error("the database is gone")),
    });
    const { body } = await metrics.render();
    expect(sampleOf(body, "tidings_webhook_backlog")).toBeNaN();
    expect(body).toContain("tidings_http_requests_total");
  });

  it("exports no backlog gauges without a backlog read, and the open circuits once observed", async () => {
    const metrics = createMetrics();
    expect((await metrics.render()).body).not.toContain("tidings_webhook_backlog");
    expect((await metrics.render()).body).not.toContain("tidings_webhook_open_circuits");
    let open = 2;
    metrics.observeOpenCircuits(() => open);
    expect(sampleOf((await metrics.render()).body, "tidings_webhook_open_circuits")).toBe(2);
    open = 0;
    expect(sampleOf((await metrics.render()).body, "tidings_webhook_open_circuits")).toBe(0);
  });
});
