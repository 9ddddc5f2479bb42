import { err, ok, type Result } from "neverthrow";
import * as v from "valibot";
import { type Issue, type ValidationError, validationError } from "../errors.js";
import { closestName } from "./closest-name.js";

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
 * quoted key), an unknown field (`expected` is `never`, `input` the key) and a non-object under
 * the object's own message, so each gets a sentence of its own. An unknown field close to one
 * of `fields` gets it suggested: `phone_numbr: is not a known field; did you mean phone_number?`
 */
export const objectMessage =
  (notAnObject: string, fields: readonly string[] = []) =>
  (issue: v.BaseIssue<unknown>): string => {
    if (issue.expected === "never") {
      const suggestion = closestName(String(issue.input), fields);
      return suggestion === null
        ? "is not a known field."
        : `is not a known field; did you mean ${suggestion}?`;
    }
    if (issue.expected?.startsWith('"')) return "is required.";
    return notAnObject;
  };

/**
 * A JSON object with exactly these fields: unknown ones are refused, with the closest known
 * field suggested (`objectMessage`).
 */
export const strictFields = <const E extends v.ObjectEntries>(entries: E, notAnObject: string) =>
  v.strictObject(entries, objectMessage(notAnObject, Object.keys(entries)));
