/**
 * `signed` → `sent`: the stored signed bytes go to the SRI's reception (`validarComprobante`),
 * the same bytes on every try, so that a resend after a lost answer is the same document.
 *
 * - RECIBIDA → `sent`.
 * - DEVUELTA with 43 (clave de acceso registrada), 45 (secuencial registrado) or 70 (en
 *   procesamiento) → `sent` too: the SRI may already have this very document (a kill between
 *   the send and its record, an answer lost on the way), so the authorization service is asked;
 *   the document is never numbered again (CONTRACT §15).
 * - Any other DEVUELTA → `rejected`, `failure_reason` every message as the SRI wrote it.
 * - The SRI not reachable (refused, timeout, 5xx, garbage, a SOAP Server fault…) → tried again
 *   on the schedule; past the give-up limit (`SELLO_SRI_GIVE_UP_HOURS`, 72 h) of failures in a
 *   row → `failed`. A 4xx or a SOAP Client fault is treated the same way (a proxy or a wrong
 *   address the office can fix), only a request Sello itself could not make ends it at once.
 */
import type { SriClient, SriMessage } from '../sri/index.js';
import { formatSriMessages, isSriError, sriBaseUrl, SriUnreachable, type Ambiente } from '../sri/index.js';
import type { StepOutcome } from './outcome.js';
import { pastGiveUp, RECEPTION_RETRY_S, retryDelayMs } from './schedule.js';
import type { ClaimedSubmission, Reception } from './store.js';

export interface SriStepDeps {
  sri: SriClient;
  urls: { sriTestUrl: string; sriProductionUrl: string };
  timeScale: number;
  giveUpHours: number;
  now: () => number;
  random: () => number;
}

/** The codes that mean "ask the authorization service", in the order they are preferred. */
const ASK_AUTHORIZATION: readonly Reception[] = ['43', '70', '45'];

export function ambienteOf(row: Pick<ClaimedSubmission, 'access_key'>): Ambiente {
  return row.access_key[23] === '2' ? 2 : 1;
}

/** What a call that did not get an SRI verdict comes to: a retry on `schedule`, or the end. */
export function unreachableOutcome(row: ClaimedSubmission, err: unknown, schedule: readonly number[], deps: SriStepDeps, giveUp: boolean): StepOutcome {
  const now = deps.now();
  const message = err instanceof Error ? err.message : String(err);
  if (isSriError(err) && err.code === 'sri_bad_request') return { kind: 'failed', reason: `No se pudo enviar al SRI: ${message}` };
  if (err instanceof SriUnreachable && err.reason === 'interrupted') return { kind: 'interrupted' };
  const since = row.unreachable_since ?? new Date(now).toISOString();
  if (giveUp && pastGiveUp(since, now, deps.giveUpHours)) {
    return {
      kind: 'failed',
      reason: `El SRI no estuvo disponible durante más de ${deps.giveUpHours} h (desde ${since}); el comprobante no llegó al SRI. Último error: ${message}`,
    };
  }
  const attempts = row.attempts + 1;
  return { kind: 'retry', dueAt: now + retryDelayMs(schedule, attempts, deps.timeScale, deps.random), error: message, unreachable: true, counted: true };
}

export async function sendStep(row: ClaimedSubmission, deps: SriStepDeps): Promise<StepOutcome> {
  if (!row.signed_xml) return { kind: 'failed', reason: 'El comprobante firmado no está guardado; no se puede enviar.' };
  let answer;
  try {
    answer = await deps.sri.validarComprobante(sriBaseUrl(deps.urls, ambienteOf(row)), row.signed_xml);
  } catch (err) {
    return unreachableOutcome(row, err, RECEPTION_RETRY_S, deps, true);
  }
  if (answer.estado === 'RECIBIDA') return { kind: 'sent', reception: 'RECIBIDA', note: answer.mensajes.length > 0 ? formatSriMessages(answer.mensajes) : null };
  const codes = new Set(answer.mensajes.map((m: SriMessage) => m.identificador));
  const ask = ASK_AUTHORIZATION.find((c) => codes.has(c));
  // The SRI's words are kept as they are: after a 45 they become the failure_reason if the authorization service does not know the key.
  if (ask) return { kind: 'sent', reception: ask, note: formatSriMessages(answer.mensajes) };
  return { kind: 'rejected', reason: formatSriMessages(answer.mensajes) || 'DEVUELTA por el SRI, sin mensajes.' };
}
