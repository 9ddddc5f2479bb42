/**
 * Nothing to change here: on PostgreSQL this version adds the function that fails the
 * transaction of a request whose Idempotency-Key a retry took over, so the recovery point is
 * written with COMMIT. SQLite marks it with a plain statement that answers at once.
 */
export const recoveryPointGuard = "";
