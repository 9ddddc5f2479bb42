import { describe, expect, it } from "vitest";
import type { LinkRecord } from "../ports.js";
import { toLinkViews } from "./link-view.js";

const aLink = (code: string, originalUrl: string): LinkRecord => ({
  code,
  messageId: "m",
  organizationId: "o",
  originalUrl,
  createdAt: "2026-01-01T00:00:00.000Z",
  clicks: 0,
  firstClickedAt: null,
  lastClickedAt: null,
});

describe("toLinkViews", () => {
  it("lists links in the text's order, each as the text carried it, originals without their query", () => {
    const body = "See https://old.example/l/BBBBBBBBBBBB and https://old.example/l/AAAAAAAAAAAA.";
    const views = toLinkViews(
      { body },
      [
        aLink("AAAAAAAAAAAA", "https://a.example/x?token=s3cret"),
        aLink("BBBBBBBBBBBB", "https://b.example/"),
      ],
      // The link base changed since the send: the view still shows what the message carried.
      "https://new.example",
    );
    expect(views.map((view) => [view.url, view.original_url])).toEqual([
      ["https://old.example/l/BBBBBBBBBBBB", "https://b.example/"],
      ["https://old.example/l/AAAAAAAAAAAA", "https://a.example/x"],
    ]);
  });

  it("falls back to the link base now when the text does not show the link whole", () => {
    const [view] = toLinkViews(
      { body: "nothing here" },
      [aLink("CCCCCCCCCCCC", "https://c.example/")],
      null,
    );
    expect(view?.url).toBe("/l/CCCCCCCCCCCC");
  });
});
