/** The command line is wrong (unknown command or option, missing value): exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}
