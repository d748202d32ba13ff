/**
 * An SRI answer's text read into plain values, as one step that can run on another thread
 * (./answer-thread): the SOAP envelope parsed (no DTD, well-formed, SOAP 1.1), a Fault told apart,
 * and the Body read as the WSDL type of the service asked. Nothing in the result refers to a DOM.
 */
import { readAutorizacionAnswer, readRecepcionAnswer, type AutorizacionAnswer, type RecepcionAnswer } from './sri-answers.js';
import { parseSoapAnswer, UnexpectedAnswer } from './soap-envelope.js';

export type SriService = 'recepcion' | 'autorizacion';

export interface AnswerOf {
  recepcion: RecepcionAnswer;
  autorizacion: AutorizacionAnswer;
}

export type ReadAnswer<S extends SriService = SriService> =
  | { kind: 'answer'; value: AnswerOf[S] }
  | { kind: 'fault'; faultcode: string; faultstring: string }
  /** Not the SOAP expected: why, in Spanish. */
  | { kind: 'garbage'; why: string };

export interface AnswerJob {
  service: SriService;
  text: string;
}

export function readAnswer(job: AnswerJob): ReadAnswer {
  try {
    const soap = parseSoapAnswer(job.text);
    if (soap.kind === 'fault') return soap;
    return { kind: 'answer', value: job.service === 'recepcion' ? readRecepcionAnswer(soap.element) : readAutorizacionAnswer(soap.element) };
  } catch (err) {
    if (err instanceof UnexpectedAnswer) return { kind: 'garbage', why: err.message };
    throw err;
  }
}
