// The requests the HTTP benchmarks load a server with, one generator per endpoint.
import { otpSend } from "./fixture.js";
import type { LoadRequest } from "./load.js";
import { phoneNumber } from "./phones.js";

/** How many profiles a benchmark seeds first; lookups and sends rotate over their numbers. */
export const SEEDED = 1000;

/** What a run's requests refer to: the seeded profiles' ids and the fixture's campaign. */
export interface Context {
  ids: string[];
  campaignId: string;
}

export interface Endpoint {
  name: string;
  /** A fresh request generator for one run. */
  requests(context: Context): () => LoadRequest;
}

/** Every new profile gets a number no run has used. */
let phoneCounter = 10_000_000;

/** Every endpoint the HTTP benchmarks know, in the order they report them. */
export const ALL_ENDPOINTS: Endpoint[] = [
  {
    name: "POST /v1/profiles",
    requests: () => () => ({
      method: "POST",
      path: "/v1/profiles",
      body: JSON.stringify({
        phone_number: phoneNumber(phoneCounter++),
        first_name: "Bench",
        last_name: "Load",
      }),
    }),
  },
  {
    name: "GET /v1/profiles/{id}",
    requests: ({ ids }) => {
      let k = 0;
      return () => ({ method: "GET", path: `/v1/profiles/${ids[k++ % ids.length]}` });
    },
  },
  {
    name: "GET /v1/profiles?phone_number=",
    requests: () => {
      let k = 0;
      return () => ({
        method: "GET",
        path: `/v1/profiles?phone_number=${encodeURIComponent(phoneNumber(k++ % SEEDED))}`,
      });
    },
  },
  {
    name: "GET /v1/profiles?limit=100",
    requests: () => () => ({ method: "GET", path: "/v1/profiles?limit=100" }),
  },
  {
    name: "POST /v1/messages/send",
    requests: ({ campaignId }) => {
      let k = 0;
      return () => {
        k += 1;
        return otpSend(campaignId, phoneNumber(k % SEEDED), k);
      };
    },
  },
];

/** The endpoints named in `only` (comma-separated, as BENCH_ONLY), or all of them. */
export const endpointsNamed = (only: string | undefined): Endpoint[] =>
  ALL_ENDPOINTS.filter((endpoint) => only === undefined || only.split(",").includes(endpoint.name));
