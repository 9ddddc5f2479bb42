import {
  type ConsentChangeView,
  getConsentHistory,
  getProfile,
  listProfiles,
  type ProfileView,
} from "@tidings/core";
import { Badge, Fact, Layout, type PageFrame, RecordTable, Time } from "../components.js";
import { type PageContext, type PageRoute, renderPage } from "../context.js";
import { type ListPage, ListTable, readList, SearchBox } from "../lists.js";

const consent = (given: boolean) =>
  given ? <Badge tone="good">Yes</Badge> : <Badge tone="neutral">No</Badge>;

function ProfilesPage(props: { frame: PageFrame; list: ListPage<ProfileView> }) {
  const { frame, list } = props;
  const q = list.filters.q ?? "";
  return (
    <Layout frame={frame} section="profiles" title="Profiles">
      <ListTable
        frame={frame}
        path="/profiles"
        list={list}
        heading={q ? "Matching profiles" : "All profiles"}
        empty={q ? "No profile matches." : "No profiles yet."}
        columns={["Phone number", "Name", "Email", "Viber consent", "SMS consent", "Created"]}
        filterLabel="Find profiles"
        filterButton="Search"
        filters={
          <SearchBox
            value={q}
            errors={list.errors}
            hint="A phone number in international form (+…) or an email address."
          />
        }
      >
        {list.rows.map((profile) => (
          <tr key={profile.public_id}>
            <td>
              <a href={`${frame.base}/profiles/${profile.public_id}`}>{profile.phone_number}</a>
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
      </ListTable>
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
        <Fact term="Profile ID">
          <code>{profile.public_id}</code>
        </Fact>
        <Fact term="Name" wrap>
          {profile.full_name ?? "—"}
        </Fact>
        <Fact term="Email" wrap>
          {profile.email ?? "—"}
        </Fact>
        <Fact term="Viber marketing consent">{consent(profile.viber_marketing_consent)}</Fact>
        <Fact term="SMS marketing consent">{consent(profile.sms_marketing_consent)}</Fact>
        <Fact term="Source">{profile.source}</Fact>
        <Fact term="Created">
          <Time at={profile.created_at} />
        </Fact>
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
      <RecordTable
        id="history"
        heading="Consent history"
        empty="No consent changes recorded."
        columns={["When", "Channel", "From", "To", "By"]}
        count={props.history.length}
      >
        {props.history.map((change) => (
          <tr key={`${change.changed_at}-${change.channel}`}>
            <td>
              <Time at={change.changed_at} />
            </td>
            <td>{change.channel}</td>
            <td>{change.old_value === null ? "(created)" : change.old_value ? "Yes" : "No"}</td>
            <td>{change.new_value ? "Yes" : "No"}</td>
            <td>{change.api_key_id ?? "CLI or import"}</td>
          </tr>
        ))}
      </RecordTable>
    </Layout>
  );
}

/** `?q=` as the filter the profile list takes: a phone number, or an email. */
const filterOf = (q: string): Record<string, string> =>
  q === "" ? {} : q.includes("@") ? { email: q } : { phone_number: q };

/** Whatever was searched for is the Search box's problem. */
const fieldOf = (path: string) => (path === "email" || path === "phone_number" ? "q" : path);

async function profilesPage(context: PageContext) {
  const list = await readList(
    context,
    "/profiles",
    ["q"],
    ({ q, ...page }) =>
      listProfiles(context.deps, context.actor, { ...filterOf(q ?? ""), ...page }),
    fieldOf,
  );
  return renderPage(list.read ? 200 : 400, <ProfilesPage frame={context.frame} list={list} />);
}

/** Profiles: find by phone or email (pages of 25), a profile's consent flags and history. */
export const profileRoutes: PageRoute[] = [
  { method: "GET", pattern: "/profiles", handle: profilesPage },
  {
    method: "GET",
    pattern: "/profiles/:id",
    async handle(context) {
      const profile = await getProfile(context.deps, context.actor, context.id);
      const history = await getConsentHistory(context.deps, context.actor, context.id);
      if (profile.isErr() || history.isErr()) return context.notFound();
      return renderPage(
        200,
        <ProfilePage frame={context.frame} profile={profile.value} history={history.value} />,
      );
    },
  },
];
