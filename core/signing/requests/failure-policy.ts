/**
 * Which signature failures wait for a person and which end the request (docs/decisions.md,
 * «Una firma fallida termina su solicitud»). A person can fix only the token's side: type the
 * right PIN, unlock it, plug it in again, and approve again (CONTRACT §11: a wrong PIN is never
 * retried by itself). Anything else (a PDF that cannot be read or signed, a certificate expired
 * meanwhile, an internal error) would fail the same way at every approval: it is final.
 */
const WAITS_FOR_A_PERSON: ReadonlySet<string> = new Set(['pin_incorrect', 'pin_required', 'pin_locked', 'token_removed', 'token_not_present']);

/** The signature stays `pending` (its request `processing`) until a person approves it again. */
export function waitsForPerson(code: string): boolean {
  return WAITS_FOR_A_PERSON.has(code);
}
