import { err, ok, type Result } from "neverthrow";
import * as v from "valibot";
import { type Issue, type ValidationError, validationError } from "../errors.js";

/** `a.b[0].c`-style path of a valibot issue, or `""` for the root. */
function issuePath(issue: v.BaseIssue<unknown>, prefix: string): string {
  let path = prefix;
  for (const item of issue.path ?? []) {
    const key = item.key;
    if (typeof key === "number") path += `[${key}]`;
    else path += path === "" ? String(key) : `.${String(key)}`;
  }
  return path;
}

/** Turns valibot issues into domain issues, every one with its path. */
export function toIssues(issues: ReadonlyArray<v.BaseIssue<unknown>>, prefix = ""): Issue[] {
  return issues.map((issue) => ({
    path: issuePath(issue, prefix) || prefix || "body",
    message: issue.message,
    rule: issue.type,
  }));
}

/**
 * Parses untrusted input with a valibot schema, collecting every issue (`abortEarly: false`),
 * so a client sees all its mistakes at once.
 */
export function parseInput<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  prefix = "",
): Result<v.InferOutput<S>, ValidationError> {
  const parsed = v.safeParse(schema, input, { abortEarly: false });
  if (parsed.success) return ok(parsed.output);
  return err(validationError(toIssues(parsed.issues, prefix)));
}

/**
 * The message of a strict object's issues: valibot reports a missing field (`expected` is the
 * quoted key), an unknown field (`expected` is `never`) and a non-object under the object's
 * own message, so each gets a sentence of its own.
 */
export const objectMessage =
  (notAnObject: string) =>
  (issue: v.BaseIssue<unknown>): string => {
    if (issue.expected === "never") return "is not a known field.";
    if (issue.expected?.startsWith('"')) return "is required.";
    return notAnObject;
  };
