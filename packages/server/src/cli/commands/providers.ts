import { undiciProviderTransport } from "@tidings/adapter-http";
import type { Channel, CredentialsCheck } from "@tidings/core";
import { ok } from "neverthrow";
import { type ProviderConfig, type ProviderName, providersInUse } from "../../provider-config.js";
import { pluginOf } from "../../provider-registry.js";
import type { Command } from "../command.js";

/** One provider's cheapest authenticated read, with the configured settings. */
function check(name: ProviderName, config: ProviderConfig): Promise<CredentialsCheck> {
  const plugin = pluginOf(name);
  const own = name === "sandbox" ? null : config[name];
  if (plugin === undefined || own === null) {
    return Promise.resolve({ outcome: "ok", detail: "The sandbox needs no credentials." });
  }
  return plugin.checkCredentials(own, {
    timeoutMs: config.timeoutMs,
    transport: undiciProviderTransport,
  });
}

/**
 * Which configuration was checked, in a sentence: the settings come from this command's own
 * environment (and `--env-file`), which need not be those of the running server.
 */
function configurationRead(envFile: string | null): string {
  return envFile === null
    ? "Checked the settings in this shell's environment only, which may not be the server's: start serve and run this with the same --env-file FILE to check the server's."
    : `Checked the settings in ${envFile} and this shell's environment (which wins where both set one).`;
}

/** One provider's answer, as `providers check` reports it. */
type Checked = { provider: ProviderName } & CredentialsCheck;

/** A channel's providers in order: its failover list, or the one that carries it. */
const listOf = (providers: ProviderConfig, channel: Channel): ProviderName[] => {
  const list = providers.failover[channel] as ProviderName[];
  return list.length > 0 ? list : [providers[channel]];
};

/**
 * `providers check`: calls each configured provider's cheapest authenticated read once (Twilio
 * a page of messages, Infobip the balance, Vonage the balance when its API key and secret are set),
 * every provider of a failover list included (`providersInUse`), and says per channel whether
 * their credentials work: the first provider, then the rest of its list under `failover`. Exits
 * 1 when one is refused or unreachable.
 */
export const providersCheck: Command = {
  name: ["providers", "check"],
  summary: "Check each channel's provider credentials with its cheapest authenticated read.",
  details: [
    "",
    "Every provider of a channel's failover list (TIDINGS_PROVIDER_SMS=twilio,vonage) is checked.",
    "It checks the settings it reads itself: this shell's environment and --env-file FILE.",
    "Give serve and providers check the same --env-file FILE to check the server's.",
  ],
  usage: "",
  options: {},
  async run({ config, envFile }) {
    const providers = config.providers;
    const checked = new Map<ProviderName, CredentialsCheck>();
    await Promise.all(
      providersInUse(providers).map(async (name) => {
        checked.set(name, await check(name, providers));
      }),
    );
    const answer = (provider: ProviderName): Checked => ({ provider, ...checked.get(provider)! });
    const lists = { viber: listOf(providers, "viber"), sms: listOf(providers, "sms") };
    const channels = Object.fromEntries(
      (["viber", "sms"] as const).map((channel: Channel) => {
        const [first, ...rest] = lists[channel];
        return [channel, { ...answer(first!), failover: rest.map(answer) }];
      }),
    ) as Record<Channel, Checked & { failover: Checked[] }>;
    const failed = [...checked.values()].some(
      (c) => c.outcome === "refused" || c.outcome === "unreachable",
    );
    const human = (["viber", "sms"] as const)
      .flatMap((channel) =>
        lists[channel].map((provider) => {
          const c = answer(provider);
          return `${channel.padEnd(6)}${c.provider.padEnd(9)}${c.outcome.padEnd(12)}${c.detail}`;
        }),
      )
      .join("\n");
    return ok({
      json: { channels, configuration: { env_file: envFile } },
      human: `${human}\n\n${configurationRead(envFile)}`,
      exitCode: failed ? 1 : 0,
    });
  },
};
