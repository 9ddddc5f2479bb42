import { type Result, ResultAsync } from "neverthrow";
import type { DomainError } from "../errors.js";
import { inSpan, SPAN_ATTRIBUTES } from "./tracing.js";

/**
 * Runs an async use-case body that returns a `Result` as a `ResultAsync`, inside a span named
 * after the use case. Rejections (storage failures) stay rejections: they are not expected
 * failures and become 500s at the edge.
 */
export const useCase = <T>(
  name: string,
  body: () => Promise<Result<T, DomainError>>,
): ResultAsync<T, DomainError> =>
  new ResultAsync(inSpan(name, { [SPAN_ATTRIBUTES.useCase]: name }, body));
