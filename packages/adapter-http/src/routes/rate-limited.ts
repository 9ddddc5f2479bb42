import { type RateLimitDecision, rateLimitedError, rateLimitHeaders } from "@tidings/core";
import { type Answer, problem, withHeaders } from "../answer.js";
import { domainProblem } from "../problem.js";
import { unexpectedQuery } from "../route.js";

/**
 * The answer of a rate-limited route whose request was already counted (`decision`), right
 * after the scope check, so 400s count too and a client cannot probe for free. Past the limit
 * it is 429 with `Retry-After`; within it, a query string the route takes none of is a 400,
 * checked only now that it has counted; every answer carries the `RateLimit-*` headers.
 * `what` names what is counted, in the 429's detail.
 */
export async function withinRateLimit(
  decision: RateLimitDecision,
  what: string,
  query: URLSearchParams,
  answer: () => Promise<Answer>,
): Promise<Answer> {
  const headers = rateLimitHeaders(decision);
  if (!decision.allowed) {
    return withHeaders(problem(domainProblem(rateLimitedError(decision, what))), headers);
  }
  return withHeaders(unexpectedQuery(query) ?? (await answer()), headers);
}
