/**
 * `sent` → `authorized` | `rejected`: the SRI's authorization service is asked about the access
 * key (`autorizacionComprobante`), at once after the reception, then on the poll schedule.
 *
 * - An AUTORIZADO among the answers (the SRI lists every verdict a key had) → `authorized`,
 *   with its number and date, and the `autorizacion` XML holding the exact signed bytes sent.
 * - EN PROCESO → asked again later.
 * - NO AUTORIZADO → `rejected`, `failure_reason` the SRI's messages.
 * - No answer for the key: after RECIBIDA, 43 or 70 the SRI has the document and has not
 *   published it yet → asked again; after a 45 the number belongs to another document (another
 *   system used it): once the SRI has had its moment (`UNKNOWN_AFTER_45_LIMIT` polls) →
 *   `rejected` with the SRI's 45 message. Numbering simply continues after it.
 * - The service not reachable → asked again on the schedule, without a give-up limit: the SRI
 *   holds the document, and ending it `failed` could contradict an authorization given meanwhile.
 */
import type { SriAutorizacion } from '../sri/index.js';
import { formatSriMessages, sriBaseUrl } from '../sri/index.js';
import { autorizacionXml } from './autorizacion-xml.js';
import type { StepOutcome } from './outcome.js';
import { AUTHORIZATION_POLL_S, retryDelayMs, UNKNOWN_AFTER_45_LIMIT } from './schedule.js';
import { ambienteOf, unreachableOutcome, type SriStepDeps } from './send-step.js';
import type { ClaimedSubmission } from './store.js';

/** `fechaAutorizacion` when it reads as a date-time; the moment of the answer otherwise. */
function authorizationDate(a: SriAutorizacion, now: number): string {
  const written = a.fechaAutorizacion;
  return written !== undefined && !Number.isNaN(Date.parse(written)) ? written : new Date(now).toISOString();
}

export async function authorizeStep(row: ClaimedSubmission, deps: SriStepDeps): Promise<StepOutcome> {
  let answer;
  try {
    answer = await deps.sri.autorizacionComprobante(sriBaseUrl(deps.urls, ambienteOf(row)), row.access_key);
  } catch (err) {
    return unreachableOutcome(row, err, AUTHORIZATION_POLL_S, deps, false);
  }
  const now = deps.now();
  const pollAgain = (error: string | null): StepOutcome => ({
    kind: 'retry',
    dueAt: now + retryDelayMs(AUTHORIZATION_POLL_S, row.attempts + 1, deps.timeScale, deps.random),
    error: error ?? '',
    unreachable: false,
    counted: true,
  });

  const list = answer.autorizaciones;
  const authorized = list.find((a) => a.estado === 'AUTORIZADO');
  if (authorized) {
    if (!row.signed_xml) return { kind: 'failed', reason: 'El comprobante firmado no está guardado; no se puede archivar su autorización.' };
    const date = authorizationDate(authorized, now);
    const number = authorized.numeroAutorizacion ?? row.access_key;
    return {
      kind: 'authorized',
      number,
      date,
      estado: 'AUTORIZADO',
      xml: autorizacionXml({ ...authorized, numeroAutorizacion: number, fechaAutorizacion: date }, row.signed_xml),
    };
  }
  if (list.some((a) => a.estado === 'EN PROCESO')) return pollAgain('EN PROCESO: el SRI todavía procesa el comprobante; se consultará de nuevo.');
  const refused = list.find((a) => a.estado === 'NO AUTORIZADO');
  if (refused) return { kind: 'rejected', reason: formatSriMessages(refused.mensajes) || 'NO AUTORIZADO por el SRI, sin mensajes.' };

  // The SRI does not know the key (yet).
  if (row.reception === '45') {
    if (row.attempts + 1 >= UNKNOWN_AFTER_45_LIMIT) return { kind: 'rejected', reason: row.last_error ?? '45: ERROR SECUENCIAL REGISTRADO' };
    return pollAgain(row.last_error);
  }
  return pollAgain('El SRI recibió el comprobante pero todavía no informa su autorización; se consultará de nuevo.');
}
