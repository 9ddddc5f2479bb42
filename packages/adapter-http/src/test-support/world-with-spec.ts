// Test-only: a world plus a matcher bound to the document that world's app serves.
import type { HttpAppOptions } from "../app.js";
import { httpWorld, type RequestOptions, type TestResponse } from "./http-world.js";
import { specMatcher } from "./spec-matcher.js";

/**
 * A world whose `call(method, template, url, options)` makes a request and checks the answer
 * against the OpenAPI document before handing it back, so every test checks the document too.
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
  return { ...world, call, document: served.json, matcher };
}

export type SpecWorld = Awaited<ReturnType<typeof specWorld>>;
