import { createConsole } from "@tidings/console";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readConfig } from "../../config.js";
import { createLogger } from "../../logger.js";
import { openRuntime } from "../../runtime/runtime.js";
import { cliOrganization, runCli, tempWorkspace } from "../../testing/run-cli.js";

let workspace: ReturnType<typeof tempWorkspace>;
beforeEach(() => {
  workspace = tempWorkspace();
});
afterEach(() => workspace.cleanup());

const cli = (env: Record<string, string>, ...argv: string[]) =>
  runCli(argv, { ...workspace.env, ...env });

const anOrganization = () => cliOrganization(workspace.env);

/** Opens the console over the workspace's database, as `serve` mounts it. */
async function consoleOverWorkspace() {
  const read = readConfig(workspace.env, workspace.dir);
  if (read.isErr()) throw new Error(read.error.join("\n"));
  const runtime = await openRuntime(read.value, createLogger("silent", process.stderr));
  return { runtime, app: createConsole(runtime.deps) };
}

describe("tidings console link", () => {
  it("prints a one-time sign-in URL under TIDINGS_PUBLIC_URL that the console accepts once", async () => {
    const org = await anOrganization();
    const run = await cli(
      { TIDINGS_PUBLIC_URL: "https://tidings.example.com/" },
      "console",
      "link",
      "--org",
      org,
      "--json",
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toBe("");
    const { url, expires_at } = run.json<{ url: string; expires_at: string }>();
    expect(url).toMatch(
      /^https:\/\/tidings\.example\.com\/console\/sign-in\?token=[A-Za-z0-9_-]{43}$/,
    );
    expect(Date.parse(expires_at) - Date.now()).toBeGreaterThan(14 * 60 * 1000);
    expect(Date.parse(expires_at) - Date.now()).toBeLessThanOrEqual(15 * 60 * 1000);

    const { runtime, app } = await consoleOverWorkspace();
    try {
      const token = new URL(url).searchParams.get("token") ?? "";
      const press = () =>
        app.handle({
          method: "POST",
          url: "/sign-in",
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: `token=${token}`,
        });
      expect((await press()).status).toBe(303);
      expect((await press()).status).toBe(401);
    } finally {
      await runtime.close();
    }
  });

  it("warns when TIDINGS_PUBLIC_URL is unset and links to this machine's port", async () => {
    const org = await anOrganization();
    const run = await cli({ PORT: "4321" }, "console", "link", "--org", org, "--ttl-minutes", "60");
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^http:\/\/127\.0\.0\.1:4321\/console\/sign-in\?token=/);
    expect(run.stderr).toContain("TIDINGS_PUBLIC_URL is not set");
  });

  it("refuses a lifetime outside 1 to 1440 minutes, and an unknown organization", async () => {
    const org = await anOrganization();
    for (const ttl of ["0", "1441", "ten"]) {
      const run = await cli({}, "console", "link", "--org", org, "--ttl-minutes", ttl);
      expect(run.code, ttl).toBe(2);
      expect(run.stderr).toContain("--ttl-minutes");
    }
    const unknown = await cli({}, "console", "link", "--org", "org_01jd0000000000000000000000");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("organization_not_found");
  });
});

describe("tidings console sessions revoke", () => {
  it("ends the organization's sessions and voids its unused links", async () => {
    const org = await anOrganization();
    const link = (await cli({}, "console", "link", "--org", org, "--json")).json<{ url: string }>();
    const { runtime, app } = await consoleOverWorkspace();
    try {
      const token = new URL(link.url).searchParams.get("token") ?? "";
      const signedIn = await app.handle({
        method: "POST",
        url: "/sign-in",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: `token=${token}`,
      });
      const cookie = (signedIn.headers["set-cookie"] ?? "").split(";")[0] ?? "";
      const unused = (await cli({}, "console", "link", "--org", org, "--json")).json<{
        url: string;
      }>();
      const overview = () => app.handle({ method: "GET", url: "/", headers: { cookie } });
      expect((await overview()).status).toBe(200);

      const revoked = await cli({}, "console", "sessions", "revoke", "--org", org, "--json");
      expect(revoked.code).toBe(0);
      expect(revoked.json()).toEqual({ revoked: 1 });
      expect((await overview()).status).toBe(401);
      const stale = await app.handle({
        method: "GET",
        url: new URL(unused.url).pathname.replace("/console", "") + new URL(unused.url).search,
        headers: {},
      });
      expect(stale.status).toBe(401);
    } finally {
      await runtime.close();
    }
  });
});
