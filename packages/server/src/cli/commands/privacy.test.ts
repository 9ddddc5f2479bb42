import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliWorkspaceEach } from "../../testing/run-cli.js";

const world = cliWorkspaceEach();
const { cli } = world;

/** Imports Ada (and Grace) into the world's organization; Ada's public id. */
async function importAda(): Promise<string> {
  const path = join(world.workspace.dir, "people.csv");
  writeFileSync(
    path,
    [
      "phone_number,email,first_name,last_name,sms_marketing_consent",
      "+14155550101,ada@example.com,Ada,Lovelace,true",
      "+14155550102,grace@example.com,Grace,Hopper,",
    ].join("\n"),
  );
  const imported = await cli("profiles", "import", "--org", world.org, "--file", path, "--json");
  expect(imported.code).toBe(0);
  const exported = await cli(
    "privacy",
    "export",
    "--org",
    world.org,
    "--email",
    "ADA@example.com",
    "--json",
  );
  expect(exported.code).toBe(0);
  const document = exported.json<{ profile: { public_id: string; first_name: string } }>();
  expect(document.profile.first_name).toBe("Ada");
  return document.profile.public_id;
}

describe("profiles erase|export and privacy erase|export", () => {
  it("exports a profile, erases it, says what went, and finds nothing left the second time", async () => {
    const id = await importAda();
    const exported = await cli("profiles", "export", id, "--org", world.org);
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({
      profile: { public_id: id, phone_number: "+14155550101" },
      consent_history: [expect.objectContaining({ channel: "sms", new_value: true })],
    });

    const erased = await cli("profiles", "erase", id, "--org", world.org);
    expect(erased.code).toBe(0);
    expect(erased.stdout).toContain("Erased profiles: 1");
    expect(erased.stdout).toContain("Consent history kept");
    const after = await cli("profiles", "export", id, "--org", world.org, "--json");
    expect(after.json<{ profile: Record<string, unknown> }>().profile).toMatchObject({
      phone_number: null,
      email: null,
      first_name: null,
      erased: true,
    });
    const again = await cli(
      "privacy",
      "erase",
      "--org",
      world.org,
      "--phone-number",
      "+14155550101",
    );
    expect(again.code).toBe(0);
    expect(again.stdout).toContain("nothing to erase");
    const grace = await cli(
      "privacy",
      "export",
      "--org",
      world.org,
      "--phone-number",
      "+14155550102",
      "--json",
    );
    expect(grace.json<{ profile: { first_name: string } }>().profile.first_name).toBe("Grace");
  });

  it("refuses neither or both of --phone-number and --email, naming the flag; an unknown profile fails", async () => {
    const neither = await cli("privacy", "erase", "--org", world.org);
    expect(neither.code).toBe(1);
    expect(neither.stderr).toContain("--phone-number");
    const both = await cli(
      "privacy",
      "export",
      "--org",
      world.org,
      "--phone-number",
      "+14155550101",
      "--email",
      "a@b.c",
    );
    expect(both.code).toBe(1);
    expect(both.stderr).toContain("--email");
    const unknown = await cli(
      "profiles",
      "erase",
      "prf_00000000000000000000000000",
      "--org",
      world.org,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("prf_00000000000000000000000000");
  });
});
