/**
 * A job thread ended at a deadline (core/threads/job-thread.ts) exits a moment later, after the
 * next job may already have gone to the thread that replaces it: that exit must fail only the
 * ended thread's jobs, never the next one's. Shown with the SRI answer thread.
 */
import { describe, expect, it } from 'vitest';
import { createAnswerThread } from '../../../core/fiscal/sri/answer-thread/index.js';

const HEAD = '<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>';
const SLOW = `${HEAD}${'<a/>'.repeat(400_000)}</soap:Body></soap:Envelope>`;
const QUICK = `${HEAD}<ns2:autorizacionComprobanteResponse xmlns:ns2="http://ec.gob.sri.ws.autorizacion"><RespuestaAutorizacionComprobante><claveAccesoConsultada>${'1'.repeat(49)}</claveAccesoConsultada><numeroComprobantes>0</numeroComprobantes><autorizaciones/></RespuestaAutorizacionComprobante></ns2:autorizacionComprobanteResponse></soap:Body></soap:Envelope>`;

describe('a job thread past its deadline', () => {
  it('fails that job, and the job sent right after it is read by a new thread', async () => {
    const answers = createAnswerThread({ deadlineMs: 50 });
    try {
      await expect(answers.read({ service: 'autorizacion', text: SLOW })).rejects.toThrow(/no terminó en 0\.05 s/);
      // At once, before the ended thread has exited: its exit must not take this job with it.
      const next = await answers.read({ service: 'autorizacion', text: QUICK });
      expect(next).toMatchObject({ kind: 'answer', value: { autorizaciones: [] } });
    } finally {
      await answers.close();
    }
  });
});
