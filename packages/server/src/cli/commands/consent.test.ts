import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cleanupsEach } from "@tidings/core/testing";
import { expect, it } from "vitest";
import { runCli } from "../../testing/run-cli.js";
import { serveTidings } from "../../testing/served-tidings.js";

// Issue 44's operator commands, run as the real CLI on the database a real `tidings serve`
// uses: an opt-out list brought in by `suppressions import` refuses the server's sends, the
// export gives the numbers the organization still knows, and `senders` assigns, lists and
// unassigns. One server for the file.

const cleanups = cleanupsEach();

it("suppressions import|list|export and senders assign|list|unassign, against the server's database", {
  timeout: 90_000,
}, async () => {
  const tidings = await serveTidings({}, { scopes: "profiles:read,profiles:write,messages:send" });
  cleanups.push(() => tidings.stop());
  const dir = mkdtempSync(join(tmpdir(), "tidings-suppressions-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const cli = (...args: string[]) => runCli(args, tidings.env);
  const json = async <T>(...args: string[]): Promise<T> => {
    const run = await cli(...args, "--json");
    expect(run.code, run.stderr).toBe(0);
    return run.json<T>();
  };
  const org = (await json<{ data: Array<{ org_id: string }> }>("orgs", "list")).data[0]?.org_id;
  expect(org).toBeDefined();
  const ORG = String(org);

  const KNOWN = "+14155550131";
  const created = await tidings.call("POST", "/v1/profiles", {
    phone_number: KNOWN,
    sms_marketing_consent: true,
  });
  const { public_id } = (await created.json()) as { public_id: string };

  // A CSV opt-out list from another tool: valid rows suppressed, the rest listed by line.
  const csv = join(dir, "opt-outs.csv");
  writeFileSync(
    csv,
    [
      "phone_number,channel,note",
      "+1 415 555 0131,sms,asked by phone",
      "+14155550132,,from Twilio",
      "not-a-number,sms,",
      "+14155550133,email,",
    ].join("\n"),
  );
  const report = await json<{
    rows: number;
    added: number;
    rejected: Array<{ line: number; issues: Array<{ path: string }> }>;
  }>("suppressions", "import", "--org", ORG, "--file", csv);
  expect(report).toMatchObject({ rows: 4, added: 2 });
  expect(report.rejected.map((r) => r.issues.map((i) => i.path))).toEqual([
    ["phone_number"],
    ["channel"],
  ]);
  expect(report.rejected.map((r) => r.line)).toEqual([4, 5]);

  // JSON lines, read as text: a line that is not JSON is rejected, the rest still go in.
  const jsonl = join(dir, "opt-outs.jsonl");
  writeFileSync(
    jsonl,
    `${JSON.stringify({ phone_number: "+14155550134", channel: "viber", note: "n" })}\n{oops\n`,
  );
  const human = await cli("suppressions", "import", "--org", ORG, "--file", jsonl);
  expect(human.code, human.stderr).toBe(0);
  expect(human.stdout).toContain(`2 rows from ${jsonl}: 1 suppressed, 1 rejected.`);
  expect(human.stdout).toMatch(/ {2}line 2: line: /);
  const missing = await cli("suppressions", "import", "--org", ORG, "--file", join(dir, "none"));
  expect(missing.code).not.toBe(0);
  expect(missing.stderr).toContain("cannot read");

  // The server refuses the imported number, and its profile's consent is off.
  const refused = await tidings.call("POST", "/v1/messages/send", {
    campaign_id: tidings.campaignId,
    recipient: { type: "phone_number", value: KNOWN },
    params: { pin: "1234" },
  });
  expect(refused.status).toBe(403);
  expect(await refused.json()).toMatchObject({ code: "recipient_opted_out" });
  const profile = await (await tidings.call("GET", `/v1/profiles/${public_id}`)).json();
  expect(profile).toMatchObject({ sms_marketing_consent: false, suppressed: { sms: true } });

  // list: every one, newest first; export: the number where a profile still has it.
  const listed = await json<Array<{ channel: string; source: string }>>(
    "suppressions",
    "list",
    "--org",
    ORG,
  );
  expect(listed.map((s) => [s.channel, s.source])).toEqual([
    ["viber", "api"],
    ["sms", "api"],
    ["sms", "api"],
  ]);
  const exported = await cli("suppressions", "export", "--org", ORG);
  expect(exported.code, exported.stderr).toBe(0);
  const lines = exported.stdout
    .trim()
    .split("\n")
    .map(
      (line) =>
        JSON.parse(line) as {
          phone_number: string | null;
          phone_number_hash: string;
          note: string | null;
        },
    );
  expect(lines).toHaveLength(3);
  expect(lines.find((l) => l.note === "asked by phone")?.phone_number).toBe(KNOWN);
  expect(lines.filter((l) => l.phone_number === null)).toHaveLength(2);
  expect(lines.every((l) => /^[0-9a-f]{64}$/.test(l.phone_number_hash))).toBe(true);

  // add and remove, one number at a time; an API suppression lifts without a note.
  const added = await json<{ phone_number: string; note: string }>(
    "suppressions",
    "add",
    "--org",
    ORG,
    "--channel",
    "sms",
    "--phone-number",
    "+14155550135",
    "--note",
    "asked at the counter",
  );
  expect(added).toMatchObject({ phone_number: "+14155550135", note: "asked at the counter" });
  const args = ["--org", ORG, "--channel", "sms", "--phone-number", "+14155550135"];
  expect(await json("suppressions", "remove", ...args)).toEqual({ removed: true });
  const again = await cli("suppressions", "remove", ...args, "--json");
  expect(again.code).not.toBe(0);
  expect(again.stdout + again.stderr).toContain("suppression_not_found");

  // senders: assigned, listed (all, and one organization's), unassigned once.
  expect(await json("senders", "assign", "36111", "--org", ORG, "--channel", "sms")).toMatchObject({
    assigned: true,
    new: true,
  });
  const all = await json<Array<{ sender: string; channel: string }>>("senders", "list");
  expect(all).toEqual([expect.objectContaining({ organization_id: ORG, sender: "36111" })]);
  expect(await json("senders", "list", "--org", ORG)).toEqual(all);
  expect(await json("senders", "unassign", "36111", "--org", ORG, "--channel", "sms")).toEqual({
    organization_id: ORG,
    channel: "sms",
    sender: "36111",
    unassigned: true,
  });
  expect(
    await json("senders", "unassign", "36111", "--org", ORG, "--channel", "sms"),
  ).toMatchObject({ unassigned: false });
  expect((await cli("senders", "list")).stdout).toContain("No sender is assigned.");
  const badChannel = await cli("senders", "assign", "36111", "--org", ORG, "--channel", "email");
  expect(badChannel.code).not.toBe(0);
  expect(badChannel.stderr).toContain("--channel must be sms or viber");
});
