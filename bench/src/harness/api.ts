import { request } from "undici";
import { phoneNumber } from "./phones.js";

/** One answer of the API, body as text. */
export interface ApiAnswer {
  status: number;
  body: string;
}

/** One request to a Tidings server with the bench key. */
export async function call(
  baseUrl: string,
  token: string,
  method: "GET" | "POST",
  path: string,
  body?: unknown,
): Promise<ApiAnswer> {
  const answer = await request(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: answer.statusCode, body: await answer.body.text() };
}

/** Runs `task(i)` for i in [0, count) with at most `concurrency` in flight. */
export async function inParallel(
  count: number,
  concurrency: number,
  task: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
}

/**
 * Creates profiles numbered [first, first + count) through the API and returns their ids in
 * that order; it doubles as the server's warm-up.
 */
export async function seedProfiles(
  baseUrl: string,
  token: string,
  first: number,
  count: number,
): Promise<string[]> {
  const ids: string[] = new Array(count);
  await inParallel(count, 16, async (i) => {
    const answer = await call(baseUrl, token, "POST", "/v1/profiles", {
      phone_number: phoneNumber(first + i),
      first_name: "Bench",
      last_name: `Person ${first + i}`,
    });
    if (answer.status !== 201) throw new Error(`seeding: ${answer.status} ${answer.body}`);
    ids[i] = (JSON.parse(answer.body) as { public_id: string }).public_id;
  });
  return ids;
}
