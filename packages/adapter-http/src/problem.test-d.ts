import type * as core from "@tidings/core";
import type { ResultAsync } from "neverthrow";
import { describe, expectTypeOf, it } from "vitest";
import type { domainProblem, statusOf } from "./problem.js";

type Core = typeof core;

/** The error of every function core exports that answers a `ResultAsync`: its use cases. */
type UseCaseError = {
  [K in keyof Core]: Core[K] extends (...args: never[]) => ResultAsync<unknown, infer E>
    ? E
    : never;
}[keyof Core];

describe("the HTTP edge answers every error a use case returns", () => {
  it("finds core's use cases and their errors", () => {
    expectTypeOf<UseCaseError>().not.toBeNever();
    expectTypeOf<core.NotFoundError>().toExtend<UseCaseError>();
  });

  it("turns each of them into a status and a problem", () => {
    // A use case that returned an error outside DomainError would reach the edge unmapped.
    expectTypeOf<UseCaseError>().toExtend<Parameters<typeof statusOf>[0]>();
    expectTypeOf<UseCaseError>().toExtend<Parameters<typeof domainProblem>[0]>();
  });
});
