import { describe, expect, it } from "vitest";
import { specWorld } from "./testing/world-with-spec.js";

// A misspelt field or parameter is refused (nothing is silently ignored) and, when a known one
// is close, the refusal names it, as the CLI does for its flags.

describe("unknown fields and parameters", () => {
  it("suggests the closest known field of a body, and nothing when none is close", async () => {
    const world = await specWorld();
    const typo = await world.request("POST", "/v1/profiles", {
      body: { phone_numbr: "+14155550101", first_name: "Ada" },
    });
    expect(typo.status).toBe(400);
    expect(typo.json.errors).toEqual(
      expect.arrayContaining([
        { path: "phone_numbr", message: "is not a known field; did you mean phone_number?" },
      ]),
    );
    const far = await world.request("POST", "/v1/profiles", {
      body: { phone_number: "+14155550101", colour: "red" },
    });
    expect(far.json.errors).toEqual([{ path: "colour", message: "is not a known field." }]);

    const campaign = await world.campaign();
    const send = await world.request("POST", "/v1/messages/send", {
      body: {
        campaign_id: campaign.campaign_id,
        recipient: { type: "phone_number", vaule: "+14155550101" },
        client_refrence: "x",
      },
    });
    expect(send.status).toBe(400);
    expect(send.json.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: "recipient.vaule",
          message: "is not a known field; did you mean value?",
        }),
        expect.objectContaining({
          path: "client_refrence",
          message: "is not a known field; did you mean client_reference?",
        }),
      ]),
    );

    const hook = await world.request("POST", "/v1/webhooks", {
      body: { url: "https://hooks.example.com/in", topic: ["message.sent"] },
    });
    expect(hook.status).toBe(400);
    expect(hook.json.errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          path: "topic",
          message: "is not a known field; did you mean topics?",
        }),
      ]),
    );
  });

  it("suggests the closest query parameter, listing those the endpoint takes", async () => {
    const world = await specWorld();
    const answer = await world.request("GET", "/v1/messages?limt=5");
    expect(answer.status).toBe(400);
    expect(answer.json.errors).toEqual([
      expect.objectContaining({
        path: "limt",
        message: expect.stringMatching(
          /^is not a parameter of this endpoint; did you mean limit\? It takes status, .*limit, cursor\.$/,
        ),
      }),
    ]);
    const far = await world.request("GET", "/v1/deliveries?colour=red");
    expect(far.json.errors).toEqual([
      expect.objectContaining({
        path: "colour",
        message: expect.stringMatching(
          /^is not a parameter of this endpoint; it takes status, failing,/,
        ),
      }),
    ]);
  });
});
