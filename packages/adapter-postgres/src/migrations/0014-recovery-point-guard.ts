/**
 * `idempotency_held(n)` answers `n` when it is 1 and raises SQLSTATE `TK001` otherwise. A
 * request marks its recovery point through it in the transaction of its work, with the
 * transaction's COMMIT rather than in a round trip of its own: when a retry took the key over
 * meanwhile, the mark matches no row and the raise fails the whole transaction, so the work
 * that ran past its lock is not committed twice. A function, because PostgreSQL may evaluate
 * a failing constant expression while planning, whichever branch of a CASE it is in.
 */
export const recoveryPointGuard: readonly string[] = [
  `CREATE FUNCTION idempotency_held(marked BIGINT) RETURNS BIGINT
   LANGUAGE plpgsql VOLATILE
   AS $$
   BEGIN
     IF marked <> 1 THEN
       RAISE EXCEPTION 'The Idempotency-Key was taken over by a retry.' USING ERRCODE = 'TK001';
     END IF;
     RETURN marked;
   END
   $$`,
];
