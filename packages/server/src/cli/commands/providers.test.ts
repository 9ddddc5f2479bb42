import { generateKeyPairSync } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeInfobip } from "@tidings/adapter-infobip/testing";
import { startFakeTelnyx } from "@tidings/adapter-telnyx/testing";
import { startFakeTwilio } from "@tidings/adapter-twilio/testing";
import { startFakeVonage } from "@tidings/adapter-vonage/testing";
import { cleanupsEach } from "@tidings/core/testing";
import { expect, it } from "vitest";
import { startInProcess } from "../../testing/in-process.js";
import { runCli, tempWorkspace } from "../../testing/run-cli.js";

// `tidings providers check` against loopback fakes of each provider: what works, what is
// refused, and the exit code a script can test.

const cleanups = cleanupsEach();
const ACCOUNT = `AC${"3".repeat(32)}`;

async function workspace(env: Record<string, string>) {
  const w = tempWorkspace();
  cleanups.push(() => w.cleanup());
  return { ...w.env, TIDINGS_DEV: "1", ...env };
}

it("checks Viber on Infobip and SMS on Twilio: both work, exit 0", async () => {
  const infobip = await startFakeInfobip({ apiKey: "ib-key" });
  const twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: "token" });
  cleanups.push(() => infobip.close());
  cleanups.push(() => twilio.close());
  const env = await workspace({
    TIDINGS_PROVIDER_VIBER: "infobip",
    TIDINGS_PROVIDER_SMS: "twilio",
    TIDINGS_INFOBIP_BASE_URL: infobip.url,
    TIDINGS_INFOBIP_API_KEY: "ib-key",
    TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
    TIDINGS_TWILIO_AUTH_TOKEN: "token",
    TIDINGS_TWILIO_API_URL: twilio.url,
  });
  const run = await runCli(["providers", "check", "--json"], env);
  expect(run.code).toBe(0);
  expect(run.json()).toEqual({
    channels: {
      viber: {
        provider: "infobip",
        outcome: "ok",
        detail: "Infobip balance 42.5 EUR.",
        failover: [],
      },
      sms: {
        provider: "twilio",
        outcome: "ok",
        detail: `Twilio accepted the auth token of account ${ACCOUNT}.`,
        failover: [],
      },
    },
    configuration: { env_file: null },
  });
  const text = await runCli(["providers", "check"], env);
  expect(text.stdout).toMatch(/^viber +infobip +ok +Infobip balance/m);
});

it("a refused key is reported per channel and exits 1; the sandbox needs nothing", async () => {
  const twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: "token" });
  cleanups.push(() => twilio.close());
  const env = await workspace({
    TIDINGS_PROVIDER_SMS: "twilio",
    TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
    TIDINGS_TWILIO_AUTH_TOKEN: "wrong",
    TIDINGS_TWILIO_API_URL: twilio.url,
  });
  const run = await runCli(["providers", "check", "--json"], env);
  expect(run.code).toBe(1);
  expect(run.json()).toMatchObject({
    channels: {
      viber: { provider: "sandbox", outcome: "ok" },
      sms: { provider: "twilio", outcome: "refused" },
    },
  });
  expect(run.stdout).not.toContain("wrong");
});

it("Vonage: the balance read with the API key and secret, skipped without them", async () => {
  const { privateKey } = generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs8", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
  const vonage = await startFakeVonage({
    applicationId: "app",
    privateKey,
    signatureSecret: "s",
    apiKey: "key",
    apiSecret: "secret",
  });
  cleanups.push(() => vonage.close());
  const base = {
    TIDINGS_PROVIDER: "vonage",
    TIDINGS_VONAGE_APPLICATION_ID: "app",
    TIDINGS_VONAGE_PRIVATE_KEY: privateKey,
    TIDINGS_VONAGE_SIGNATURE_SECRET: "s",
    TIDINGS_VONAGE_API_URL: vonage.url,
    TIDINGS_VONAGE_REST_URL: vonage.url,
  };
  const skipped = await runCli(["providers", "check", "--json"], await workspace(base));
  expect(skipped.code).toBe(0);
  expect(skipped.json()).toMatchObject({ channels: { sms: { outcome: "skipped" } } });
  const checked = await runCli(
    ["providers", "check", "--json"],
    await workspace({
      ...base,
      TIDINGS_VONAGE_API_KEY: "key",
      TIDINGS_VONAGE_API_SECRET: "secret",
    }),
  );
  expect(checked.json()).toMatchObject({
    channels: { viber: { outcome: "ok", detail: "Vonage balance 10.28." }, sms: { outcome: "ok" } },
  });
});

it("Telnyx: the balance read with the API key; a wrong key is refused, exit 1", async () => {
  const telnyx = await startFakeTelnyx({ apiKey: "telnyx-key" });
  cleanups.push(() => telnyx.close());
  const base = {
    TIDINGS_PROVIDER_SMS: "telnyx",
    TIDINGS_TELNYX_PUBLIC_KEY: telnyx.publicKey,
    TIDINGS_TELNYX_API_URL: telnyx.url,
  };
  const env = await workspace({ ...base, TIDINGS_TELNYX_API_KEY: "telnyx-key" });
  const checked = await runCli(["providers", "check", "--json"], env);
  expect(checked.code).toBe(0);
  expect(checked.json()).toMatchObject({
    channels: {
      viber: { provider: "sandbox", outcome: "ok" },
      sms: { provider: "telnyx", outcome: "ok", detail: "Telnyx balance 300.00 USD." },
    },
  });
  const wrong = await workspace({ ...base, TIDINGS_TELNYX_API_KEY: "not-the-key" });
  const refused = await runCli(["providers", "check", "--json"], wrong);
  expect(refused.code).toBe(1);
  expect(refused.json()).toMatchObject({ channels: { sms: { outcome: "refused" } } });
});

it("checks every provider of a failover list, not only the first; a refused later one exits 1", async () => {
  const twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: "token" });
  const telnyx = await startFakeTelnyx({ apiKey: "telnyx-key" });
  cleanups.push(() => twilio.close());
  cleanups.push(() => telnyx.close());
  const base = {
    TIDINGS_PROVIDER_SMS: "twilio,telnyx",
    TIDINGS_TELNYX_SENDERS: '{"+14155550100":"+14155550199"}',
    TIDINGS_TWILIO_ACCOUNT_SID: ACCOUNT,
    TIDINGS_TWILIO_AUTH_TOKEN: "token",
    TIDINGS_TWILIO_API_URL: twilio.url,
    TIDINGS_TELNYX_PUBLIC_KEY: telnyx.publicKey,
    TIDINGS_TELNYX_API_URL: telnyx.url,
  };
  const both = await runCli(
    ["providers", "check", "--json"],
    await workspace({ ...base, TIDINGS_TELNYX_API_KEY: "telnyx-key" }),
  );
  expect(both.code).toBe(0);
  expect(both.json()).toMatchObject({
    channels: {
      viber: { provider: "sandbox", outcome: "ok", failover: [] },
      sms: {
        provider: "twilio",
        outcome: "ok",
        failover: [{ provider: "telnyx", outcome: "ok", detail: "Telnyx balance 300.00 USD." }],
      },
    },
  });
  const wrong = await workspace({ ...base, TIDINGS_TELNYX_API_KEY: "not-the-key" });
  const refused = await runCli(["providers", "check", "--json"], wrong);
  expect(refused.code).toBe(1);
  expect(refused.json()).toMatchObject({
    channels: { sms: { outcome: "ok", failover: [{ provider: "telnyx", outcome: "refused" }] } },
  });
  const text = await runCli(["providers", "check"], wrong);
  expect(text.stdout).toMatch(/^sms +twilio +ok .*\nsms +telnyx +refused/m);
});

it("reads the server's settings from the --env-file serve was given, and says which it checked", async () => {
  const twilio = await startFakeTwilio({ accountSid: ACCOUNT, authToken: "token" });
  cleanups.push(() => twilio.close());
  const w = tempWorkspace();
  cleanups.push(() => w.cleanup());
  const file = join(w.dir, "tidings.env");
  writeFileSync(
    file,
    [
      "# The server's settings, shared by every command",
      "TIDINGS_DEV=1",
      "TIDINGS_PROVIDER_SMS=twilio",
      `TIDINGS_TWILIO_ACCOUNT_SID=${ACCOUNT}`,
      'TIDINGS_TWILIO_AUTH_TOKEN="token"',
      `TIDINGS_TWILIO_API_URL=${twilio.url}`,
      "",
    ].join("\n"),
  );
  // A second terminal: the database, and none of the server's settings.
  const shell = { ...w.env, TIDINGS_LOG_LEVEL: "info" };

  const server = startInProcess(w.dir, ["serve", "--port", "0", "--env-file", file], shell);
  cleanups.push(async () => {
    await server.stop();
  });
  expect(await server.waitForLog("listening")).toMatchObject({
    env_file: file,
    providers: { viber: "sandbox", sms: "twilio" },
  });

  const checked = await runCli(["--env-file", file, "providers", "check", "--json"], shell);
  expect(checked.code).toBe(0);
  expect(checked.json()).toEqual({
    channels: {
      viber: expect.objectContaining({ provider: "sandbox", outcome: "ok" }),
      sms: {
        provider: "twilio",
        outcome: "ok",
        detail: `Twilio accepted the auth token of account ${ACCOUNT}.`,
        failover: [],
      },
    },
    configuration: { env_file: file },
  });
  const text = await runCli(["providers", "check", `--env-file=${file}`], shell);
  expect(text.stdout).toMatch(/^sms +twilio +ok/m);
  expect(text.stdout).toContain(`Checked the settings in ${file} and this shell's environment`);

  // Without the file, the shell's own settings: the sandbox, and a sentence saying so.
  const own = await runCli(["providers", "check"], shell);
  expect(own.code).toBe(0);
  expect(own.stdout).toMatch(/^sms +sandbox +ok/m);
  expect(own.stdout).toContain("Checked the settings in this shell's environment only");

  // The environment wins where both set a variable, as with Node's --env-file.
  const wins = await runCli(["providers", "check", "--env-file", file, "--json"], {
    ...shell,
    TIDINGS_TWILIO_AUTH_TOKEN: "wrong",
  });
  expect(wins.code).toBe(1);
  expect(wins.json()).toMatchObject({ channels: { sms: { outcome: "refused" } } });

  const missing = await runCli(
    ["providers", "check", "--env-file", join(w.dir, "nope.env")],
    shell,
  );
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("nope.env cannot be read (ENOENT)");
  const noValue = await runCli(["providers", "check", "--env-file"], shell);
  expect(noValue.code).toBe(2);
  expect(noValue.stderr).toContain("--env-file needs a file");
});
