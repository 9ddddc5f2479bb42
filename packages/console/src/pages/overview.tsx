import {
  type ChannelActivity,
  type CountryActivity,
  channelActivity,
  countRecentMessages,
  countryActivity,
  type FailingDestinationView,
  type HourlyMessageCounts,
  listApiKeys,
  listCampaigns,
  listFailingDestinations,
  listWebhooks,
} from "@tidings/core";
import { Layout, type PageFrame, RecordTable, Time } from "../components.js";
import { type PageRoute, renderPage } from "../context.js";
import { outcomeOf } from "./deliveries.js";
import { MessageChart } from "./message-chart.js";

interface Counts {
  activeCampaigns: string;
  campaigns: string;
  activeWebhooks: number;
  webhooks: number;
  activeKeys: number;
}

/** Each channel's provider, with what it carried in the last hour. */
function Providers(props: { frame: PageFrame; channels: ChannelActivity[] }) {
  return (
    <RecordTable
      id="providers"
      heading="Providers (last hour)"
      empty="No channel is configured."
      columns={["Channel", "Provider", "Sends", "Failures"]}
      count={props.channels.length}
    >
      {props.channels.map((channel) => (
        <tr key={channel.channel}>
          <td>{channel.channel === "viber" ? "Viber" : "SMS"}</td>
          <td>{channel.provider}</td>
          <td>{channel.sends}</td>
          <td>
            {channel.failures > 0 ? (
              <a href={`${props.frame.base}/messages?status=failed`}>{channel.failures}</a>
            ) : (
              0
            )}
          </td>
        </tr>
      ))}
    </RecordTable>
  );
}

/** Sends and reported spend per recipient country over the last day. */
function Countries(props: { countries: CountryActivity[] }) {
  return (
    <RecordTable
      id="countries"
      heading="Sends and spend per country (last 24 hours)"
      empty="No message in the last 24 hours."
      columns={["Country", "Sends", "Spend"]}
      count={props.countries.length}
    >
      {props.countries.map((line) => (
        <tr key={line.country ?? "unknown"}>
          <td>{line.country ?? <span class="muted">unknown</span>}</td>
          <td>{line.sends}</td>
          <td>
            {line.spend.length === 0 ? (
              <span class="muted" title="No provider reported a price for these messages">
                —
              </span>
            ) : (
              line.spend.map((sum) => `${sum.amount} ${sum.currency}`).join(" + ")
            )}
          </td>
        </tr>
      ))}
    </RecordTable>
  );
}

function FailingDestinations(props: { frame: PageFrame; destinations: FailingDestinationView[] }) {
  const { frame } = props;
  return (
    <RecordTable
      id="failing"
      heading="Failing webhook destinations"
      empty="No webhook destination is failing: nothing is being retried, and nothing failed in the last 24 hours."
      columns={["Destination", "Being retried", "Failed (24 h)", "Last attempt", "Last outcome"]}
      count={props.destinations.length}
    >
      {props.destinations.map((destination) => (
        <tr key={destination.webhook_id ?? destination.url}>
          <td class="wrap">
            {destination.webhook_id === null ? (
              <>
                {destination.url} <span class="muted">(a send's own webhook_url)</span>
              </>
            ) : (
              <a href={`${frame.base}/webhooks/${destination.webhook_id}`}>
                {destination.url ?? destination.webhook_id}
              </a>
            )}
          </td>
          <td>{destination.retrying}</td>
          <td>
            {destination.failed > 0 && destination.webhook_id !== null ? (
              <a href={`${frame.base}/webhooks/${destination.webhook_id}?status=failed`}>
                {destination.failed}
              </a>
            ) : (
              destination.failed
            )}
          </td>
          <td>
            <Time at={destination.last_attempt_at} />
          </td>
          <td class="wrap">
            {outcomeOf({
              status_code: destination.last_status_code,
              error: destination.last_error,
            })}
          </td>
        </tr>
      ))}
    </RecordTable>
  );
}

/** A number that links to what it counts, and the total it is part of when there is one. */
function Tile(props: {
  href: string;
  count: number | string;
  of?: number | string | undefined;
  children: string;
}) {
  return (
    <li>
      <a href={props.href}>
        <span class="tile-number">{props.count}</span> {props.children}
      </a>
      {props.of !== undefined && <span class="muted"> of {props.of}</span>}
    </li>
  );
}

function OverviewPage(props: {
  frame: PageFrame;
  counts: Counts;
  hours: HourlyMessageCounts[];
  failing: FailingDestinationView[];
  channels: ChannelActivity[];
  countries: CountryActivity[];
}) {
  const { frame, counts } = props;
  return (
    <Layout frame={frame} section="overview" title="Overview">
      <ul class="tiles">
        <Tile
          href={`${frame.base}/campaigns?status=active`}
          count={counts.activeCampaigns}
          of={counts.campaigns}
        >
          active campaigns
        </Tile>
        <Tile href={`${frame.base}/webhooks`} count={counts.activeWebhooks} of={counts.webhooks}>
          active webhooks
        </Tile>
        <Tile href={`${frame.base}/keys`} count={counts.activeKeys}>
          usable API keys
        </Tile>
      </ul>
      <Providers frame={frame} channels={props.channels} />
      <Countries countries={props.countries} />
      <FailingDestinations frame={frame} destinations={props.failing} />
      <section aria-labelledby="chart-heading">
        <h2 id="chart-heading">Messages in the last 24 hours</h2>
        <MessageChart hours={props.hours} />
      </section>
    </Layout>
  );
}

/** Overview: the organization at a glance. */
export const overviewRoutes: PageRoute[] = [
  {
    method: "GET",
    pattern: "/",
    async handle(context) {
      const { deps, actor } = context;
      const [campaigns, active, webhooks, keys, hours, failing, channels, countries] =
        await Promise.all([
          listCampaigns(deps, actor, { limit: "100" }),
          listCampaigns(deps, actor, { limit: "100", status: "active" }),
          listWebhooks(deps, actor),
          listApiKeys(deps, actor.organizationId),
          countRecentMessages(deps, actor),
          listFailingDestinations(deps, actor),
          channelActivity(deps, actor),
          countryActivity(deps, actor),
        ]);
      if (
        campaigns.isErr() ||
        active.isErr() ||
        webhooks.isErr() ||
        keys.isErr() ||
        hours.isErr() ||
        failing.isErr() ||
        channels.isErr() ||
        countries.isErr()
      ) {
        throw new Error("overview failed");
      }
      const now = deps.clock.now();
      // Past a page of a hundred, the tile says so rather than count every campaign.
      const count = (page: typeof campaigns.value) =>
        `${page.data.length}${page.meta.has_more ? "+" : ""}`;
      const counts: Counts = {
        campaigns: count(campaigns.value),
        activeCampaigns: count(active.value),
        webhooks: webhooks.value.data.length,
        activeWebhooks: webhooks.value.data.filter((w) => w.status === "active").length,
        activeKeys: keys.value.filter(
          (k) => k.revoked_at === null && (k.expires_at === null || Date.parse(k.expires_at) > now),
        ).length,
      };
      return renderPage(
        200,
        <OverviewPage
          frame={context.frame}
          counts={counts}
          hours={hours.value}
          failing={failing.value}
          channels={channels.value}
          countries={countries.value}
        />,
      );
    },
  },
];
