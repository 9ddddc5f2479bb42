// Test-only: a world plus a matcher bound to the document that world's app serves.
import type { HttpAppOptions } from "../app.js";
import { httpWorld, type RequestOptions, type TestResponse } from "./http-world.js";
import { specMatcher } from "./spec-matcher.js";

/**
 * A world whose every request is checked against the OpenAPI document before its answer is
 * handed back, so every test checks the document too. `request(method, url)` finds the path
 * template itself; `call(method, template, url)` names it, which also asserts it.
 */
export async function specWorld(appOptions: HttpAppOptions = {}) {
  const world = await httpWorld(appOptions);
  const served = await world.request("GET", "/openapi.json", { token: null });
  const matcher = specMatcher(served.json);
  const call = async (
    method: string,
    template: string,
    url: string,
    options: RequestOptions = {},
  ): Promise<TestResponse> => {
    const response = await world.request(method, url, options);
    matcher.expectMatchesSpec(method, template, response);
    return response;
  };
  const request = (method: string, url: string, options: RequestOptions = {}) =>
    call(method, matcher.templateOf(url), url, options);
  return { ...world, request, call, document: served.json, matcher };
}

export type SpecWorld = Awaited<ReturnType<typeof specWorld>>;
