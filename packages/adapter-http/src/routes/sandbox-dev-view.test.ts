import { describe, expect, it } from "vitest";
import { httpWorld, otpBody } from "../testing/http-world.js";

describe("GET /sandbox/messages/{message_id}: what the sandbox was handed (issue 35 item 6)", () => {
  it("with dev on, answers the sent text to the key that sent it, and 404 to any other key", async () => {
    const world = await httpWorld({ dev: true });
    const campaign = await world.campaign();
    const sent = await world.request("POST", "/v1/messages/send", {
      body: otpBody(campaign.campaign_id),
    });
    const id = String(sent.json.message_id);
    const seen = await world.request("GET", `/sandbox/messages/${id}`);
    expect(seen.status).toBe(200);
    expect(seen.json).toEqual({
      message_id: id,
      channel: "sms",
      sender: expect.any(String),
      text: expect.stringContaining("123456"),
    });
    const other = await world.tenant();
    const stranger = await world.request("GET", `/sandbox/messages/${id}`, { token: other.token });
    expect(stranger.status).toBe(404);
    expect((await world.request("GET", "/sandbox/messages/not-a-uuid")).status).toBe(404);
    expect((await world.request("GET", `/sandbox/messages/${id}`, { token: null })).status).toBe(
      401,
    );
  });

  it("is never served outside development: an OTP's text is a secret", async () => {
    const world = await httpWorld();
    const campaign = await world.campaign();
    const sent = await world.request("POST", "/v1/messages/send", {
      body: otpBody(campaign.campaign_id),
    });
    const answer = await world.request("GET", `/sandbox/messages/${String(sent.json.message_id)}`);
    expect([404, 405]).toContain(answer.status);
    expect(answer.body).not.toContain("123456");
  });
});
