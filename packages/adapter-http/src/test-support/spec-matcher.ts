// Test-only: checks a real response against its operation in the served OpenAPI document, with
// ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1). Not exported from the package.
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { expect } from "vitest";
import type { HttpResponse } from "../types.js";

type Json = Record<string, unknown>;

const DOCUMENT_ID = "https://tidings.dev/openapi.json";

/** JSON pointer segment escaping (RFC 6901). */
const pointerSegment = (segment: string) => segment.replaceAll("~", "~0").replaceAll("/", "~1");

/** A matcher bound to one OpenAPI document (the one the app serves). */
export function specMatcher(document: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormatsModule.default(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const paths = document.paths as Record<string, Record<string, Json>>;
  const components = document.components as { responses: Record<string, Json> };

  /** The response object and its JSON pointer, following one `$ref` to `components`. */
  const responseFor = (method: string, template: string, status: number) => {
    const operation = paths[template]?.[method.toLowerCase()];
    const fallback = status === 404 || status === 405 || status === 413 || status === 415;
    if (!operation) {
      // Whatever no operation answers (unknown route, other method) is a shared error response.
      expect(fallback, `${method} ${template} is not in the document`).toBe(true);
      return {
        response: components.responses[`E${status}`],
        pointer: `/components/responses/E${status}`,
      };
    }
    const responses = operation.responses as Record<string, Json>;
    let pointer = `/paths/${pointerSegment(template)}/${method.toLowerCase()}/responses/${status}`;
    let response = responses[String(status)];
    if (!response && fallback) {
      response = components.responses[`E${status}`];
      pointer = `/components/responses/E${status}`;
    }
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
     * Asserts that `response` is documented for `method template` and that its body matches the
     * documented schema for its status and content type, and its documented headers are sent.
     */
    expectMatchesSpec(method: string, template: string, response: HttpResponse) {
      const { response: documented, pointer } = responseFor(method, template, response.status);
      expect(response.headers["x-request-id"]).toBeTruthy();
      const headers = (documented?.headers ?? {}) as Record<string, Json>;
      for (const name of Object.keys(headers)) {
        if (name === "Idempotent-Replayed" || name === "WWW-Authenticate") continue;
        expect(response.headers[name.toLowerCase()], `header ${name}`).toBeDefined();
      }
      const content = documented?.content as Record<string, Json> | undefined;
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
