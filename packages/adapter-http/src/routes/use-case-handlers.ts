import type { Actor, Deps } from "@tidings/core";
import { type Answer, fromResult, type UseCaseResult } from "../answer.js";
import { type RouteContext, withJsonBody, withQuery } from "../route.js";

// Most routes hand one use case the request's id, query or body and answer its result. These
// build such a handler, so a route states only its use case, where its id is, and its status.

type Status = 200 | 201 | 202 | 204;

/** What a use case returns: neverthrow's `ResultAsync`, seen as something to await. */
interface Answered<T> {
  then<A>(onResolved: (result: UseCaseResult<T>) => A | PromiseLike<A>): PromiseLike<A>;
}

/** A path parameter; `""` when absent, which no record's id is (so the use case says 404). */
const idOf = (context: RouteContext, name: string): string => context.params[name] ?? "";

/** Calls `useCase` with the path parameter `name`, e.g. `callWithId("campaign_id", getCampaign)`. */
export const callWithId =
  <T>(
    name: string,
    useCase: (deps: Deps, actor: Actor, id: string) => Answered<T>,
    status?: Status,
  ) =>
  async (context: RouteContext): Promise<Answer> =>
    fromResult(await useCase(context.deps, context.actor, idOf(context, name)), status);

/** Calls a list `useCase` with the query string's parameters. */
export const callWithQuery =
  <T>(useCase: (deps: Deps, actor: Actor, query: Record<string, string>) => Answered<T>) =>
  (context: RouteContext): Promise<Answer> =>
    withQuery(context.query, async (query) =>
      fromResult(await useCase(context.deps, context.actor, query)),
    );

/** Calls a list `useCase` of the record at the path parameter `name` with the query string. */
export const callWithIdAndQuery =
  <T>(
    name: string,
    useCase: (deps: Deps, actor: Actor, id: string, query: Record<string, string>) => Answered<T>,
  ) =>
  (context: RouteContext): Promise<Answer> =>
    withQuery(context.query, async (query) =>
      fromResult(await useCase(context.deps, context.actor, idOf(context, name), query)),
    );

/** Calls `useCase` with the JSON body. */
export const callWithBody =
  <T>(useCase: (deps: Deps, actor: Actor, input: unknown) => Answered<T>, status?: Status) =>
  (context: RouteContext): Promise<Answer> =>
    withJsonBody(context, async (input) =>
      fromResult(await useCase(context.deps, context.actor, input), status),
    );

/** Calls `useCase` with the path parameter `name` and the JSON body. */
export const callWithIdAndBody =
  <T>(
    name: string,
    useCase: (deps: Deps, actor: Actor, id: string, input: unknown) => Answered<T>,
    status?: Status,
  ) =>
  (context: RouteContext): Promise<Answer> =>
    withJsonBody(context, async (input) =>
      fromResult(await useCase(context.deps, context.actor, idOf(context, name), input), status),
    );
