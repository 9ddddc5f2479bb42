import { Layout, type PageFrame, type Section } from "../components.js";

/** The 404 of a signed-in page: nothing says whether the id exists elsewhere. */
export function NotFoundPage(props: { frame: PageFrame; section: Section | null }) {
  return (
    <Layout frame={props.frame} section={props.section} title="Not found">
      <p>There is nothing here in this organization. It may have been deleted.</p>
    </Layout>
  );
}

/** A request this console cannot serve: a form from elsewhere, or an unexpected failure. */
export function ProblemPage(props: {
  frame: PageFrame;
  section: Section | null;
  title: string;
  message: string;
}) {
  return (
    <Layout frame={props.frame} section={props.section} title={props.title}>
      <div class="problems" role="alert">
        <p>{props.message}</p>
      </div>
    </Layout>
  );
}
