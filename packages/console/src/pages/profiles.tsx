import {
  type ConsentChangeView,
  getConsentHistory,
  getProfile,
  listProfiles,
  type ProfileView,
} from "@tidings/core";
import { Badge, Layout, NextPage, type PageFrame, Time } from "../components.js";
import type { PageContext, PageRoute } from "../context.js";
import { renderPage } from "../context.js";

const consent = (given: boolean) =>
  given ? <Badge tone="good">Yes</Badge> : <Badge tone="neutral">No</Badge>;

function ProfilesPage(props: {
  frame: PageFrame;
  q: string;
  profiles: ProfileView[];
  next: string | null;
  problem: string | null;
}) {
  const { frame } = props;
  return (
    <Layout frame={frame} section="profiles" title="Profiles">
      <form method="get" action={`${frame.base}/profiles`} class="search">
        <label for="q">Search</label>
        <input type="search" id="q" name="q" value={props.q} aria-describedby="q-hint" />
        <button type="submit">Search</button>
        <p class="hint" id="q-hint">
          A phone number in international form (+…) or an email address.
        </p>
      </form>
      {props.problem ? (
        <div class="problems" role="alert">
          <p>{props.problem}</p>
        </div>
      ) : props.profiles.length === 0 ? (
        <p class="empty">{props.q ? "No profile matches." : "No profiles yet."}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Phone number</th>
                <th scope="col">Name</th>
                <th scope="col">Email</th>
                <th scope="col">Viber consent</th>
                <th scope="col">SMS consent</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {props.profiles.map((profile) => (
                <tr key={profile.public_id}>
                  <td>
                    <a href={`${frame.base}/profiles/${profile.public_id}`}>
                      {profile.phone_number}
                    </a>
                  </td>
                  <td class="wrap">{profile.full_name ?? "—"}</td>
                  <td class="wrap">{profile.email ?? "—"}</td>
                  <td>{consent(profile.viber_marketing_consent)}</td>
                  <td>{consent(profile.sms_marketing_consent)}</td>
                  <td>
                    <Time at={profile.created_at} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <NextPage href={props.next} />
    </Layout>
  );
}

function ProfilePage(props: {
  frame: PageFrame;
  profile: ProfileView;
  history: ConsentChangeView[];
}) {
  const { profile } = props;
  const attributes = Object.entries(profile.attributes);
  return (
    <Layout frame={props.frame} section="profiles" title={`Profile ${profile.phone_number}`}>
      <dl class="facts">
        <dt>Profile ID</dt>
        <dd>
          <code>{profile.public_id}</code>
        </dd>
        <dt>Name</dt>
        <dd class="wrap">{profile.full_name ?? "—"}</dd>
        <dt>Email</dt>
        <dd class="wrap">{profile.email ?? "—"}</dd>
        <dt>Viber marketing consent</dt>
        <dd>{consent(profile.viber_marketing_consent)}</dd>
        <dt>SMS marketing consent</dt>
        <dd>{consent(profile.sms_marketing_consent)}</dd>
        <dt>Source</dt>
        <dd>{profile.source}</dd>
        <dt>Created</dt>
        <dd>
          <Time at={profile.created_at} />
        </dd>
      </dl>
      {attributes.length > 0 && (
        <section aria-labelledby="attributes-heading">
          <h2 id="attributes-heading">Attributes</h2>
          <dl class="facts">
            {attributes.map(([name, value]) => (
              <>
                <dt class="wrap">{name}</dt>
                <dd class="wrap">{String(value)}</dd>
              </>
            ))}
          </dl>
        </section>
      )}
      <section aria-labelledby="history-heading">
        <h2 id="history-heading">Consent history</h2>
        {props.history.length === 0 ? (
          <p class="empty">No consent changes recorded.</p>
        ) : (
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Channel</th>
                  <th scope="col">From</th>
                  <th scope="col">To</th>
                  <th scope="col">By</th>
                </tr>
              </thead>
              <tbody>
                {props.history.map((change) => (
                  <tr key={`${change.changed_at}-${change.channel}`}>
                    <td>
                      <Time at={change.changed_at} />
                    </td>
                    <td>{change.channel}</td>
                    <td>
                      {change.old_value === null ? "(created)" : change.old_value ? "Yes" : "No"}
                    </td>
                    <td>{change.new_value ? "Yes" : "No"}</td>
                    <td>{change.api_key_id ?? "CLI or import"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </Layout>
  );
}

/** `?q=` as the filter the profile list takes: a phone number, or an email. */
const filterOf = (q: string): Record<string, string> =>
  q === "" ? {} : q.includes("@") ? { email: q } : { phone_number: q };

async function profilesPage(context: PageContext) {
  const { query } = context.request;
  const q = (query.get("q") ?? "").trim();
  const cursor = query.get("cursor");
  const listed = await listProfiles(context.deps, context.actor, {
    ...filterOf(q),
    limit: "25",
    ...(cursor ? { cursor } : {}),
  });
  if (listed.isErr()) {
    const issue = listed.error.type === "validation" ? listed.error.issues[0] : undefined;
    const problem =
      issue?.path === "cursor"
        ? "This page link is out of date; start from the first page."
        : "Search by a phone number in international form (such as +44 7700 900123) or an email address.";
    return renderPage(
      400,
      <ProfilesPage frame={context.frame} q={q} profiles={[]} next={null} problem={problem} />,
    );
  }
  const nextCursor = listed.value.meta.next_cursor;
  const next = nextCursor
    ? `${context.frame.base}/profiles?${new URLSearchParams({ ...(q ? { q } : {}), cursor: nextCursor })}`
    : null;
  return renderPage(
    200,
    <ProfilesPage
      frame={context.frame}
      q={q}
      profiles={listed.value.data}
      next={next}
      problem={null}
    />,
  );
}

/** Profiles: find by phone or email (pages of 25), a profile's consent flags and history. */
export const profileRoutes: PageRoute[] = [
  { method: "GET", pattern: "/profiles", handle: profilesPage },
  {
    method: "GET",
    pattern: "/profiles/:id",
    async handle(context) {
      const id = context.params.id ?? "";
      const profile = await getProfile(context.deps, context.actor, id);
      const history = await getConsentHistory(context.deps, context.actor, id);
      if (profile.isErr() || history.isErr()) return context.notFound();
      return renderPage(
        200,
        <ProfilePage frame={context.frame} profile={profile.value} history={history.value} />,
      );
    },
  },
];
