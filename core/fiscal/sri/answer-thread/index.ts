/**
 * Reads the SRI's answers, and the XML of received purchases (../read-purchase.ts), on a worker
 * thread of its own. An answer is up to 2 MiB of text from outside; building a DOM of 2 MiB of
 * hostile tags takes seconds (measured: about 4 s for a million empty elements), time the API's
 * thread must not spend. The thread has its own memory limit and a deadline: an answer past
 * either ends the thread and reads as garbage (the call is retried like any unusable answer); a
 * purchase past either is refused (`SriClient.readPurchase`).
 *
 * @example
 *   const answers = createAnswerThread();
 *   const read = await answers.read({ service: 'recepcion', text });
 *   const reading = await answers.readPurchase(xmlText); // { kind: 'purchase', … } | { kind: 'refused', reason }
 *   await answers.close();
 */
import { threadEntry } from '../../../paths.js';
import { createJobThread } from '../../../threads/job-thread.js';
import type { PurchaseReading } from '../purchase-model.js';
import type { AnswerJob, ReadAnswer } from '../read-answer.js';
import type { AnswerThreadJob, AnswerThreadResult } from './jobs.js';

export interface AnswerThread {
  read(job: AnswerJob): Promise<ReadAnswer>;
  /** Reads a received purchase's XML (../read-purchase.ts); fails AnswerUnreadable like `read`. */
  readPurchase(text: string): Promise<PurchaseReading>;
  close(): Promise<void>;
}

/** Why an answer could not be read at all (the thread's deadline, memory, or death). */
export class AnswerUnreadable extends Error {
  override name = 'AnswerUnreadable';
}

const ENTRY = threadEntry('sri-answer-thread', new URL('./entry.mjs', import.meta.url));

export function createAnswerThread(options: { deadlineMs?: number; memoryMb?: number } = {}): AnswerThread {
  const thread = createJobThread<AnswerThreadJob, AnswerThreadResult>({
    entry: ENTRY,
    deadlineMs: options.deadlineMs ?? 10_000,
    resourceLimits: { maxOldGenerationSizeMb: options.memoryMb ?? 256 },
    name: 'el hilo que lee las respuestas del SRI',
    failure: (why, cause) => new AnswerUnreadable(cause ? `${why}: ${cause.message.split('\n')[0]}` : why),
  });
  return {
    read: async (job) => {
      const result = await thread.run(job);
      if (result.service !== 'answer') throw new Error('the SRI answer thread answered an answer job with a purchase');
      return result.read;
    },
    readPurchase: async (text) => {
      const result = await thread.run({ service: 'purchase', text });
      if (result.service !== 'purchase') throw new Error('the SRI answer thread answered a purchase job with an answer');
      return result.reading;
    },
    close: () => thread.close(),
  };
}
