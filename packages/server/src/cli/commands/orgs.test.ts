import { afterEach, beforeEach, expect, it } from "vitest";
import { runCli, tempWorkspace } from "../../testing/run-cli.js";

let workspace: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  workspace = tempWorkspace();
});
afterEach(() => workspace.cleanup());

const cli = (...argv: string[]) => runCli(argv, workspace.env);

it("orgs list finds every organization's id again, oldest first, also by name", async () => {
  const empty = await cli("orgs", "list");
  expect(empty.code).toBe(0);
  expect(empty.stdout).toContain("No organizations yet");
  const acme = (await cli("orgs", "create", "--name", "Acme", "--json")).json<{ org_id: string }>();
  const globex = (await cli("orgs", "create", "--name", "Globex", "--json")).json<{
    org_id: string;
  }>();

  const listed = await cli("orgs", "list", "--json");
  expect(listed.code).toBe(0);
  expect(listed.json()).toEqual({
    data: [
      { org_id: acme.org_id, name: "Acme", created_at: expect.any(String) },
      { org_id: globex.org_id, name: "Globex", created_at: expect.any(String) },
    ],
  });
  // In a pipe: one tab-separated line each, the id first, for `cut -f1`.
  const lines = (await cli("orgs", "list")).stdout.trim().split("\n");
  expect(lines.map((line) => line.split("\t")[0])).toEqual([acme.org_id, globex.org_id]);
  expect(lines[1]?.split("\t")[2]).toBe("Globex");

  const byName = await cli("orgs", "list", "--name", "acme", "--json");
  expect(byName.json()).toEqual({ data: [expect.objectContaining({ org_id: acme.org_id })] });
  const none = await cli("orgs", "list", "--name", "Initech");
  expect(none.code).toBe(0);
  expect(none.stdout).toContain('No organization is named "Initech"');
});

it("orgs get shows one organization; an unknown id fails naming it", async () => {
  const { org_id } = (await cli("orgs", "create", "--name", "Acme", "--json")).json<{
    org_id: string;
  }>();
  const found = await cli("orgs", "get", org_id, "--json");
  expect(found.code).toBe(0);
  expect(found.json()).toEqual({ org_id, name: "Acme", created_at: expect.any(String) });
  expect((await cli("orgs", "get", org_id)).stdout).toContain(`${org_id}  Acme`);
  const missing = await cli("orgs", "get", "org_0000000000000000000000000");
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("org_0000000000000000000000000");
  expect(missing.stderr).toContain("organization_not_found");
  expect((await cli("orgs", "get")).code).toBe(2);
});
