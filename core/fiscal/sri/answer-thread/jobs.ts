/**
 * What the SRI answer thread does with each job: read an SRI answer (../read-answer.ts) or a
 * received purchase's XML (../read-purchase.ts). Both are text from outside whose parsing must
 * not hold the API's thread. The result says which job it answers, so that the process's side
 * (./index.ts) hands each caller its own type without a cast.
 */
import type { PurchaseReading } from '../purchase-model.js';
import { readAnswer, type AnswerJob, type ReadAnswer } from '../read-answer.js';
import { readPurchaseXml } from '../read-purchase.js';

/** A purchase's XML to read: a signed factura, or the SRI's `autorizacion` holding one. */
export interface PurchaseJob {
  service: 'purchase';
  text: string;
}

export type AnswerThreadJob = AnswerJob | PurchaseJob;

export type AnswerThreadResult = { service: 'answer'; read: ReadAnswer } | { service: 'purchase'; reading: PurchaseReading };

export function runAnswerThreadJob(job: AnswerThreadJob): AnswerThreadResult {
  return job.service === 'purchase' ? { service: 'purchase', reading: readPurchaseXml(job.text) } : { service: 'answer', read: readAnswer(job) };
}
