/** A due delivery offered to a claim: what the fair order ranks it by. */
export interface ClaimCandidate {
  id: string;
  organizationId: string;
  /** When it is due (`nextAttemptAt`). */
  due: string;
}

const byDueThenId = (a: ClaimCandidate, b: ClaimCandidate): number =>
  a.due < b.due ? -1 : a.due > b.due ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

/**
 * The `limit` candidates a fair claim takes, in the order `DeliveryRepository.claimDue`
 * defines: `offers` holds each destination's due rows, oldest first, already cut to the
 * per-destination bound; each organization's offers take turns by their rank within their
 * destination, and the claim takes the first `limit` by (turn, due, id). So a destination, or an
 * organization, with a long backlog gets no more of a claim than one with a single due row.
 */
export function fairOrder<C extends ClaimCandidate>(
  offers: ReadonlyArray<readonly C[]>,
  limit: number,
): C[] {
  const ranked = offers.flatMap((offer) => offer.map((candidate, rank) => ({ candidate, rank })));
  ranked.sort((a, b) => a.rank - b.rank || byDueThenId(a.candidate, b.candidate));
  const turns = new Map<string, number>();
  const withTurns = ranked.map(({ candidate }) => {
    const turn = (turns.get(candidate.organizationId) ?? 0) + 1;
    turns.set(candidate.organizationId, turn);
    return { candidate, turn };
  });
  withTurns.sort((a, b) => a.turn - b.turn || byDueThenId(a.candidate, b.candidate));
  return withTurns.slice(0, limit).map(({ candidate }) => candidate);
}
