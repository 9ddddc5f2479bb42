import { type Result, ResultAsync } from "neverthrow";
import type { DomainError } from "../errors.js";

/**
 * Runs an async use-case body that returns a `Result` as a `ResultAsync`. Rejections (storage
 * failures) stay rejections: they are not expected failures and become 500s at the edge.
 */
export const useCase = <T>(
  body: () => Promise<Result<T, DomainError>>,
): ResultAsync<T, DomainError> => new ResultAsync(body());
