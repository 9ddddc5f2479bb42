import { existsSync, readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { cleanupsEach } from "@tidings/core/testing";
import { expect, it } from "vitest";
import { REPO_ROOT } from "./testing/child-cli.js";
import {
  commandProblems,
  commandsOf,
  type DocCommand,
  shBlocks,
  tsBlocks,
  variablesPassed,
} from "./testing/doc-commands.js";
import { eventually } from "./testing/eventually.js";
import { startInProcess } from "./testing/in-process.js";
import { tempWorkspace } from "./testing/run-cli.js";
import { type BlockRun, shellSession } from "./testing/shell-session.js";

// The README's commands, as a newcomer runs them. The quickstart and "Operating" sections: every
// `sh` block, in order, pasted into one bash session (so the variables one block sets reach the
// next), against `tidings serve` started as step 1 says. Only the two ports differ: the server
// listens on a free port instead of 3000, the receiver on a free one instead of 4000. Every
// other command, in the README and the examples' READMEs (a line of a block or an inline one),
// is checked as written: the variables it uses are set before it, the environment variables
// it passes are read by what it runs, and its files, scripts, commands and options exist.

const README = readFileSync(join(REPO_ROOT, "README.md"), "utf8");

/** The two commands the README opens with: the quickstart's server, and every test. */
const FIRST_LINES = [
  "npm i -g pnpm@10 && pnpm install --frozen-lockfile && TIDINGS_DEV=1 pnpm start",
  "npm i -g pnpm@10 && pnpm install --frozen-lockfile && pnpm test",
];

/** The `sh` blocks between two headings of the README, in order. */
function blocksBetween(from: string, to: string | null): string[] {
  const start = README.indexOf(from);
  const end = to === null ? README.length : README.indexOf(to, start + 1);
  expect(start, from).toBeGreaterThan(-1);
  expect(end, String(to)).toBeGreaterThan(start);
  return [...README.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
}

/** The documents whose commands are checked: the README and every README of an example. */
const DOCUMENTS = [
  "README.md",
  "packages/client/README.md",
  ...readdirSync(join(REPO_ROOT, "examples"))
    .map((dir) => `examples/${dir}/README.md`)
    .filter((doc) => existsSync(join(REPO_ROOT, doc))),
];

/**
 * Every problem of the commands of `docs` (path → text): the README's block lines in order,
 * each seeing only the variables set before it; any other command sees all of them.
 */
function problemsOf(docs: Record<string, string>, readme: string): string[] {
  const variables = new Set<string>();
  const problems: string[] = [];
  const report = (command: DocCommand, found: string[]) =>
    problems.push(...found.map((problem) => `${command.doc}: ${command.text}\n  ${problem}`));
  for (const line of shBlocks(readme).flat()) {
    const command = { doc: "README.md", text: line, inline: false };
    report(command, commandProblems(command, { root: REPO_ROOT, variables }));
    const name = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(line)?.[1];
    if (name !== undefined) variables.add(name);
  }
  for (const [doc, text] of Object.entries(docs)) {
    const commands = commandsOf(doc, text).filter((c) => c.inline || doc !== "README.md");
    for (const command of commands) {
      report(command, commandProblems(command, { root: REPO_ROOT, variables }));
    }
  }
  // A TypeScript snippet reads only what a command of the README passes it.
  const passed = variablesPassed(commandsOf("README.md", readme));
  for (const snippet of tsBlocks(readme)) {
    for (const match of snippet.matchAll(/process\.env\.([A-Za-z_]\w*)/g)) {
      if (!passed.has(match[1] ?? "")) {
        problems.push(`README.md: process.env.${match[1]} is passed by no command of the README`);
      }
    }
  }
  return problems;
}

it("opens with the two commands, the second being what .ci/run runs", () => {
  const [first, second] = README.split("\n").slice(3, 5);
  expect(README.startsWith("# Tidings\n\n```sh\n")).toBe(true);
  expect(first?.replace(/\s+#.*$/, "")).toBe(FIRST_LINES[0]);
  expect(second?.replace(/\s+#.*$/, "")).toBe(FIRST_LINES[1]);
  const ci = readFileSync(join(REPO_ROOT, ".ci/run"), "utf8").split("\n");
  expect(ci).toContain(FIRST_LINES[1]);
});

it("every command of the README and the examples' READMEs is right as written", () => {
  const docs = Object.fromEntries(
    DOCUMENTS.map((doc) => [doc, readFileSync(join(REPO_ROOT, doc), "utf8")]),
  );
  expect(Object.keys(docs)).toContain("examples/client/README.md");
  expect(problemsOf(docs, README)).toEqual([]);
  // The example's own README gives the command the quickstart runs.
  const clientCommand = shBlocks(README)
    .flat()
    .find((line) => line.includes("examples/client/main.ts"));
  expect(shBlocks(docs["examples/client/README.md"] ?? "").flat()).toEqual([clientCommand]);
});

it("the check finds each kind of drift", () => {
  const readme = [
    "```sh",
    "TOKEN=secret",
    "```",
    "",
    "```ts",
    "new Tidings({ token: process.env.TOKEN! });",
    "```",
  ].join("\n");
  const drifted = [
    "```sh",
    'TIDINGS_TOKEN="$TOKEN" TIDINGS_CAMPAIGN_ID="$CAMPAIGN" pnpm exec tsx examples/client/main.ts',
    "pnpm --silent tidings console link --org org_…",
    'pnpm --silent tidings console lnk --org "$TOKEN"',
    'pnpm --silent tidings keys list --organization "$TOKEN"',
    'TIDINGS_CAMPAIGN="$TOKEN" pnpm exec tsx examples/client/main.ts',
    "pnpm begin",
    "```",
    "",
    "Or inline: `pnpm exec tsx examples/client/mian.ts`, and `tidings --versoin`.",
  ].join("\n");
  expect(problemsOf({ "examples/x/README.md": drifted }, readme)).toEqual([
    expect.stringMatching(/\$CAMPAIGN is set by no command before it$/),
    expect.stringMatching(/holds no placeholder/),
    expect.stringMatching(/`tidings console lnk --org .*` names no command$/),
    expect.stringMatching(/`tidings keys list` has no option --organization$/),
    expect.stringMatching(/TIDINGS_CAMPAIGN is read by nothing in examples\/client$/),
    expect.stringMatching(/pnpm has no script begin$/),
    expect.stringMatching(/examples\/client\/mian\.ts does not exist$/),
    expect.stringMatching(/`tidings --versoin` names no command$/),
    "README.md: process.env.TOKEN is passed by no command of the README",
  ]);
});

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
  const quickstart = blocksBetween("\n## Quickstart\n", "\n## Operating\n");
  const operating = blocksBetween("\n## Operating\n", "\n## Examples\n");
  // No block is left out: the two first lines, then the quickstart's and Operating's blocks.
  const [opening, ...rest] = blocksBetween("# Tidings\n", null);
  expect(opening).toContain(FIRST_LINES[1]);
  expect(rest).toEqual([...quickstart, ...operating]);
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
  const [, , keys, campaign, receiver, profile, send, client, importing, signIn, stop, ...extra] =
    quickstart;
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
  // The typed client's example, with a receiver of its own, finds step 5's profile.
  const clientRun = await run(client ?? "");
  const steps = clientRun.stdout
    .split("\n")
    .filter((line) => line.startsWith('{"step"'))
    .map((line) => JSON.parse(line) as { step: string; topic?: string });
  expect(steps).toEqual(
    expect.arrayContaining([
      { step: "profile found", public_id: expect.any(String) },
      expect.objectContaining({ step: "sent", status: "sent" }),
      expect.objectContaining({ step: "refused", code: "validation_failed" }),
      expect.objectContaining({ step: "webhook", topic: "message.seen" }),
    ]),
  );
  const imported = await run(importing ?? "");
  expect(imported.stdout).toContain("1 created");
  expect(imported.stdout).toContain("1 rejected");
  expect(existsSync(join(REPO_ROOT, "customers.csv"))).toBe(false);
  // The console's sign-in link, for the organization step 2 made.
  expect((await run(signIn ?? "")).stdout).toMatch(
    /^http:\/\/127\.0\.0\.1:\d+\/console\/sign-in\?token=\S+$/m,
  );
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
    metrics,
    cleanUp,
    ...more
  ] = operating;
  expect(more).toEqual([]);
  expect(answerOf(await run(message ?? ""))).toMatchObject({
    message_id: messageId,
    events: expect.arrayContaining([expect.objectContaining({ topic: "message.seen" })]),
  });
  // Step 6's message, and the typed client's, which used the same reference.
  const found = answerOf(await run(search ?? "")) as { data: Array<Record<string, unknown>> };
  expect(found.data).toHaveLength(2);
  expect(found.data).toContainEqual(
    expect.objectContaining({ message_id: messageId, client_reference: "login-42" }),
  );
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
  expect((await run(metrics ?? "")).stdout).toMatch(/^tidings_messages_total\{/m);
  // The subscription to this machine is gone, and so is the receiver.
  await run(cleanUp ?? "");
  const token = await shell.variable("TOKEN");
  const gone = await fetch(`${base}/v1/webhooks/${webhookId}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  expect(gone.status).toBe(404);
  await eventually("the receiver to stop", async () =>
    (await run("jobs -r | wc -l")).stdout.trim() === "0" ? true : undefined,
  );
});
