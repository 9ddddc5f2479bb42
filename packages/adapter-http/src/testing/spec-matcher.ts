// Test-only: checks a real response against its operation in the served OpenAPI document, with
// ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1). Not exported from the package.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { expect } from "vitest";
import { createRouter } from "../router.js";
import type { HttpResponse } from "../types.js";

type Json = Record<string, unknown>;

const DOCUMENT_ID = "https://tidings.dev/openapi.json";

/**
 * What the edge may answer for a method and path no operation documents: 400 (a NUL in the
 * URL), 401 (under `/v1` authentication runs before routing), 404, 405 and 413 (a body over the
 * limit is refused before routing). Each is a shared `E<status>` response of the document.
 */
const EDGE_STATUSES = new Set([400, 401, 404, 405, 413]);

/** JSON pointer segment escaping (RFC 6901). */
const pointerSegment = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1");

/** A matcher bound to one OpenAPI document (the one the app serves). */
export function specMatcher(document: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormatsModule.default(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const paths = document.paths as Record<string, Record<string, Json>>;
  const components = document.components as { responses: Record<string, Json> };
  const templates = createRouter(Object.keys(paths).map((path) => ({ method: "ANY", path })));

  /** The documented operation, if any; HEAD is documented as GET (RFC 9110 §9.3.2). */
  const operationOf = (method: string, template: string): Json | undefined => {
    const upper = method.toUpperCase();
    const name = (upper === "HEAD" ? "GET" : upper).toLowerCase();
    const item = Object.hasOwn(paths, template) ? paths[template] : undefined;
    return item && Object.hasOwn(item, name) ? item[name] : undefined;
  };

  /** The response object and its JSON pointer, following one `$ref` to `components`. */
  const responseFor = (method: string, template: string, status: number) => {
    const operation = operationOf(method, template);
    if (!operation) {
      // Whatever no operation answers (unknown route, other method) is a shared error response.
      expect(EDGE_STATUSES, `${method} ${template} answered ${status}`).toContain(status);
      return {
        response: components.responses[`E${status}`],
        pointer: `/components/responses/E${status}`,
      };
    }
    const name = (method.toUpperCase() === "HEAD" ? "get" : method.toLowerCase()) as string;
    const responses = operation.responses as Record<string, Json>;
    let pointer = `/paths/${pointerSegment(template)}/${name}/responses/${status}`;
    let response = responses[String(status)];
    expect(response, `${method} ${template} does not document ${status}`).toBeDefined();
    const ref = response?.$ref;
    if (typeof ref === "string") {
      pointer = ref.slice(1);
      response = components.responses[ref.split("/").at(-1) ?? ""];
    }
    return { response, pointer };
  };

  return {
    /**
     * The documented path template a request target falls under (`/v1/profiles/prf_1` gives
     * `/v1/profiles/{public_id}`), matched as the app routes it; the bare path when none does.
     */
    templateOf(url: string): string {
      const path = url.split("#", 1)[0]?.split("?", 1)[0] ?? "";
      const match = path.startsWith("/") ? templates.match("ANY", path) : null;
      return match?.kind === "found" ? match.route.path : path;
    },

    /**
     * Asserts that `response` is documented for `method template` and that its body matches the
     * documented schema for its status and content type, and its documented headers are sent.
     * HEAD is checked as GET, with an empty body.
     */
    expectMatchesSpec(method: string, template: string, response: HttpResponse) {
      const { response: documented, pointer } = responseFor(method, template, response.status);
      expect(documented, `no shared response E${response.status}`).toBeDefined();
      expect(response.headers["x-request-id"]).toBeTruthy();
      const headers = (documented?.headers ?? {}) as Record<string, Json>;
      for (const name of Object.keys(headers)) {
        if (name === "Idempotent-Replayed" || name === "WWW-Authenticate") continue;
        // A header documented as `required: false` is sent with some answers of the status only.
        if ((headers[name] as { required?: unknown }).required === false) continue;
        expect(response.headers[name.toLowerCase()], `header ${name}`).toBeDefined();
      }
      const content = documented?.content as Record<string, Json> | undefined;
      if (method.toUpperCase() === "HEAD") {
        expect(response.body).toBe("");
        if (content) expect(Number(response.headers["content-length"])).toBeGreaterThan(0);
        return;
      }
      if (!content) {
        expect(response.body).toBe("");
        return;
      }
      const type = (response.headers["content-type"] ?? "").split(";")[0]?.trim() ?? "";
      expect(Object.keys(content), `content types of ${response.status}`).toContain(type);
      const validate = ajv.getSchema(
        `${DOCUMENT_ID}#${pointer}/content/${pointerSegment(type)}/schema`,
      );
      if (!validate) throw new Error(`no schema at ${pointer}`);
      const body: unknown = JSON.parse(response.body);
      const valid = validate(body);
      expect(validate.errors ?? [], JSON.stringify(body).slice(0, 500)).toEqual([]);
      expect(valid).toBe(true);
    },
  };
}
