import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { cleanupsEach } from "@tidings/core/testing";
import { expect, it } from "vitest";
import { REPO_ROOT } from "./testing/child-cli.js";
import { eventually } from "./testing/eventually.js";
import { startInProcess } from "./testing/in-process.js";
import { tempWorkspace } from "./testing/run-cli.js";
import { type BlockRun, shellSession } from "./testing/shell-session.js";

// The README's quickstart and "Operating" sections, run as a newcomer runs them: every `sh`
// block, in order, pasted into one bash session (so the variables one block sets reach the
// next), against `tidings serve` started as step 1 says. Only the two ports differ: the server
// listens on a free port instead of 3000, the receiver on a free one instead of 4000.

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");

/** The `sh` blocks between two headings of the README, in order. */
function blocksBetween(from: string, to: string): string[] {
  const start = README.indexOf(from);
  const end = README.indexOf(to, start + 1);
  expect(start, from).toBeGreaterThan(-1);
  expect(end, to).toBeGreaterThan(start);
  return [...README.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 0));
    });
  });

/** The API's answer a block printed: its last JSON line that is not the receiver's. */
function answerOf(run: BlockRun): Record<string, unknown> {
  const documents = run.stdout
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((document) => !("topic" in document && "attempt" in document));
  const last = documents.at(-1);
  if (last === undefined) throw new Error(`no JSON answer in:\n${run.stdout}\n${run.stderr}`);
  return last;
}

/** The events the example receiver printed so far (one JSON line each). */
function receivedEvents(stdout: string): Array<{ delivery_id: string; topic: string }> {
  return stdout
    .split("\n")
    .filter((line) => line.startsWith('{"delivery_id"'))
    .map((line) => JSON.parse(line) as { delivery_id: string; topic: string });
}

const cleanups = cleanupsEach();

it("the README's quickstart and Operating commands work as written, in order", {
  timeout: 300_000,
}, async () => {
  const quickstart = blocksBetween("\n## Quickstart\n", "\n### The `tidings` command\n");
  const operating = blocksBetween("\n## Operating\n", "\n## Observability\n");
  // The first two are for the first terminal; the test plays that part itself.
  expect(quickstart.slice(0, 2)).toEqual(["pnpm install\n", "TIDINGS_DEV=1 pnpm start\n"]);
  expect(README).toContain("&& TIDINGS_DEV=1 pnpm start");

  const workspace = tempWorkspace();
  cleanups.push(() => workspace.cleanup());
  const [receiverPort] = await Promise.all([freePort()]);
  const serverEnv = { ...workspace.env, TIDINGS_DEV: "1", TIDINGS_LOG_LEVEL: "info" };
  const server = startInProcess(workspace.dir, ["serve", "--port", "0"], serverEnv);
  cleanups.push(async () => {
    await server.stop();
  });
  const { port } = await server.waitForLog("listening");
  const base = `http://127.0.0.1:${String(port)}`;
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] =>
        !entry[0].startsWith("TIDINGS_") && entry[1] !== undefined,
    ),
  );
  const shell = shellSession(REPO_ROOT, {
    ...inherited,
    TIDINGS_DATABASE_URL: workspace.env.TIDINGS_DATABASE_URL ?? "",
    RECEIVER_PORT: String(receiverPort),
  });
  cleanups.push(() => shell.close());
  const asWritten = (block: string) =>
    block
      .replaceAll("http://127.0.0.1:3000", base)
      .replaceAll("127.0.0.1:4000", `127.0.0.1:${String(receiverPort)}`);
  const run = async (block: string) => {
    const done = await shell.run(asWritten(block));
    expect(done.failed, `${block}\n${done.stderr}`).toEqual([]);
    expect(done.code, `${block}\n${done.stderr}`).toBe(0);
    return done;
  };
  const api = async (path: string) => {
    const token = await shell.variable("TOKEN");
    const answer = await fetch(base + path, { headers: { authorization: `Bearer ${token}` } });
    return (await answer.json()) as { data: Array<Record<string, unknown>> };
  };
  const receiverUp = () =>
    eventually("the receiver to listen", async () =>
      shell.output().stderr.includes(`Receiving webhooks at http://127.0.0.1:${receiverPort}`)
        ? true
        : undefined,
    );

  // Quickstart, steps 2 to 8.
  const [, , keys, campaign, receiver, profile, send, importing, stop, ...extra] = quickstart;
  expect(extra).toEqual([]);
  await run(keys ?? "");
  expect(await shell.variable("ORG")).toMatch(/^org_/);
  expect(await shell.variable("TOKEN")).toMatch(/^key_\w+:/);
  expect(await shell.variable("SECRET")).toMatch(/^whsec_/);
  await run(campaign ?? "");
  expect(await shell.variable("CAMPAIGN_ID")).toMatch(/^cmp_/);
  await run(receiver ?? "");
  await receiverUp();
  expect(answerOf(await run(profile ?? ""))).toMatchObject({ phone_number: "+14155550101" });
  expect(answerOf(await run(send ?? ""))).toMatchObject({ status: "sent" });
  const messageId = await shell.variable("MESSAGE_ID");
  expect(messageId).toMatch(/^[0-9a-f-]{36}$/);
  const topics = await eventually("the receiver to print the three events", async () => {
    const seen = receivedEvents(shell.output().stdout).map((event) => event.topic);
    return seen.length >= 3 ? seen : undefined;
  });
  expect(topics).toEqual(["message.sent", "message.delivered", "message.seen"]);
  const imported = await run(importing ?? "");
  expect(imported.stdout).toContain("1 created");
  expect(imported.stdout).toContain("1 rejected");
  expect(existsSync(join(REPO_ROOT, "customers.csv"))).toBe(false);
  await run(stop ?? "");

  // Operating, from the same shell.
  const [
    message,
    search,
    orgs,
    subscribe,
    failing,
    oneDelivery,
    deactivate,
    reactivate,
    redeliver,
    recover,
    patchCampaign,
    ...more
  ] = operating;
  expect(more).toEqual([]);
  expect(answerOf(await run(message ?? ""))).toMatchObject({
    message_id: messageId,
    events: expect.arrayContaining([expect.objectContaining({ topic: "message.seen" })]),
  });
  expect(answerOf(await run(search ?? ""))).toMatchObject({
    data: [expect.objectContaining({ message_id: messageId, client_reference: "login-42" })],
  });
  expect((await run(orgs ?? "")).stdout).toContain(await shell.variable("ORG"));
  expect(answerOf(await run(subscribe ?? ""))).toMatchObject({ status: "sent" });
  const webhookId = await shell.variable("WEBHOOK_ID");
  expect(webhookId).toMatch(/^whk_/);
  // "A second later their first attempts have failed": the receiver is down.
  await eventually("a failing delivery", async () => {
    const page = await api(`/v1/webhooks/${webhookId}/deliveries?failing=true`);
    return page.data.length > 0 ? true : undefined;
  });
  const failingPage = answerOf(await run(failing ?? "")) as { data: Array<{ status: string }> };
  expect(failingPage.data.length).toBeGreaterThan(0);
  expect(failingPage.data.every((delivery) => delivery.status === "pending")).toBe(true);
  const deliveryId = await shell.variable("DELIVERY_ID");
  expect(deliveryId).toMatch(/^[0-9a-f-]{36}$/);
  expect(answerOf(await run(oneDelivery ?? ""))).toMatchObject({
    delivery_id: deliveryId,
    status: "pending",
    attempts: [expect.objectContaining({ attempt: 0, status_code: null })],
  });
  expect(answerOf(await run(deactivate ?? ""))).toMatchObject({ status: "inactive" });
  expect(answerOf(await run(reactivate ?? ""))).toMatchObject({ status: "active" });
  await receiverUp();
  expect(answerOf(await run(redeliver ?? ""))).toMatchObject({
    delivery_id: deliveryId,
    status: "pending",
  });
  expect(answerOf(await run(recover ?? ""))).toEqual({ requeued: expect.any(Number) });
  expect(answerOf(await run(patchCampaign ?? ""))).toMatchObject({
    template: "Your Acme code is {{pin}}. It expires in 5 minutes.",
  });
});
