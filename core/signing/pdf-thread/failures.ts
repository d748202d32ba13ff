/** How a PDF job that the thread could not finish ends, in the words a person reads (Spanish). */
import { SelloError } from '../../errors/index.js';

/** Why the thread stopped while a job was in it. */
export type Death = 'deadline' | 'memory' | 'crash';

export interface Limits {
  deadlineMs: number;
  memoryMb: number;
}

const AFTER = 'Puede estar dañado o construido para bloquear a quien lo abra. Vuelva a generarlo o imprímalo a PDF desde el programa original.';

/** The job whose untrusted phase was running when the thread was stopped or died. */
export function exceededLimits(death: Death, limits: Limits): SelloError {
  const what = {
    deadline: `Leer el PDF tomó más de ${formatSeconds(limits.deadlineMs)}, el tiempo máximo que Sello dedica a un archivo`,
    memory: `Leer el PDF necesitó más de ${limits.memoryMb} MB de memoria, el máximo que Sello dedica a un archivo`,
    crash: 'La lectura del PDF detuvo el lector de PDF de Sello',
  }[death];
  return new SelloError('pdf_too_complex', { detail: `${what}. ${AFTER}`, meta: { limit: death } });
}

/** The thread could not be started: nothing is read on the agent's own thread instead. */
export function threadUnavailable(): SelloError {
  return new SelloError('internal_error', {
    detail: 'Sello no pudo iniciar su lector de PDF, así que no leyó el archivo. Reinicie Sello; si el problema sigue, el registro de Sello tiene el detalle.',
  });
}

/**
 * The thread died with this job in it, not in one of its phases, and the job cannot be run
 * again: it was there at several deaths (given up rather than tried forever), or its bytes
 * went with the thread (a large PDF handed over).
 */
export function threadDiedWithJob(): SelloError {
  return new SelloError('internal_error', {
    detail: 'El lector de PDF de Sello se detuvo mientras tenía este archivo. El registro de Sello tiene el detalle.',
  });
}

/**
 * The thread was stopped (Sello is stopping) with this job in it. Not the job's fault and not
 * an outcome: a signing request keeps its state and is resumed at the next start.
 */
export class PdfThreadStopped extends Error {
  override name = 'PdfThreadStopped';
  constructor() {
    super('El lector de PDF se detuvo porque Sello se está cerrando.');
  }
}

function formatSeconds(ms: number): string {
  const s = ms / 1000;
  return s >= 1 && Number.isInteger(s) ? `${s} s` : `${s.toFixed(1)} s`;
}
