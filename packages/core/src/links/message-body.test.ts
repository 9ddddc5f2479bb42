import { describe, expect, it } from "vitest";
import type { LinkSettings } from "../deps.js";
import { messageBody } from "./message-body.js";

const TEMPLATE = "Track https://shop.example/o/{{order}} now";
const MESSAGE = {
  id: "01900000-0000-7000-8000-000000000001",
  organizationId: "org_0000000000000000000000000a",
  createdAt: "2026-05-01T12:00:00.000Z",
};

/** The campaigns `untracked` heard of while `messageBody` rendered with `settings`. */
function heardOf(settings: Omit<LinkSettings, "untracked">, trackLinks: boolean) {
  const heard: string[] = [];
  const body = messageBody(
    { ...settings, untracked: (campaignId) => heard.push(campaignId) },
    { id: "cmp_1", template: TEMPLATE, trackLinks },
    { order: "A-1" },
    MESSAGE,
  );
  return { heard, body };
}

describe("messageBody", () => {
  it("tells `untracked` of a tracking campaign's send only when no usable base is set", () => {
    const https = { baseUrl: "https://t.example", dev: false };
    expect(heardOf(https, true).heard).toEqual([]);
    expect(heardOf(https, true).body.links).toHaveLength(1);
    expect(heardOf(https, false).heard).toEqual([]);
    for (const unusable of [
      { baseUrl: null, dev: false },
      { baseUrl: "http://t.example", dev: false },
      { baseUrl: "not a url", dev: true },
    ]) {
      const { heard, body } = heardOf(unusable, true);
      expect(heard).toEqual(["cmp_1"]);
      expect(body).toEqual({ body: "Track https://shop.example/o/A-1 now", links: [] });
      expect(heardOf(unusable, false).heard).toEqual([]);
    }
  });
});
