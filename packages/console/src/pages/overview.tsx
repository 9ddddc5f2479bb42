import {
  countRecentMessages,
  type HourlyMessageCounts,
  listApiKeys,
  listCampaigns,
  listWebhooks,
} from "@tidings/core";
import { Layout, type PageFrame } from "../components.js";
import { type PageRoute, renderPage } from "../context.js";
import { MessageChart } from "./message-chart.js";

interface Counts {
  activeCampaigns: number;
  campaigns: number;
  activeWebhooks: number;
  webhooks: number;
  activeKeys: number;
}

function OverviewPage(props: { frame: PageFrame; counts: Counts; hours: HourlyMessageCounts[] }) {
  const { frame, counts } = props;
  return (
    <Layout frame={frame} section="overview" title="Overview">
      <ul class="tiles">
        <li>
          <a href={`${frame.base}/campaigns?status=active`}>
            <span class="tile-number">{counts.activeCampaigns}</span> active campaigns
          </a>
          <span class="muted"> of {counts.campaigns}</span>
        </li>
        <li>
          <a href={`${frame.base}/webhooks`}>
            <span class="tile-number">{counts.activeWebhooks}</span> active webhooks
          </a>
          <span class="muted"> of {counts.webhooks}</span>
        </li>
        <li>
          <a href={`${frame.base}/keys`}>
            <span class="tile-number">{counts.activeKeys}</span> usable API keys
          </a>
        </li>
      </ul>
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
      const [campaigns, webhooks, keys, hours] = await Promise.all([
        listCampaigns(deps, actor, { limit: "100" }),
        listWebhooks(deps, actor),
        listApiKeys(deps, actor.organizationId),
        countRecentMessages(deps, actor),
      ]);
      if (campaigns.isErr() || webhooks.isErr() || keys.isErr() || hours.isErr()) {
        throw new Error("overview failed");
      }
      const now = deps.clock.now();
      const counts: Counts = {
        campaigns: campaigns.value.data.length,
        activeCampaigns: campaigns.value.data.filter((c) => c.status === "active").length,
        webhooks: webhooks.value.data.length,
        activeWebhooks: webhooks.value.data.filter((w) => w.status === "active").length,
        activeKeys: keys.value.filter(
          (k) => k.revoked_at === null && (k.expires_at === null || Date.parse(k.expires_at) > now),
        ).length,
      };
      return renderPage(
        200,
        <OverviewPage frame={context.frame} counts={counts} hours={hours.value} />,
      );
    },
  },
];
