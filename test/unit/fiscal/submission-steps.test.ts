/**
 * The submission job's decisions, without a network or a store: the schedule, the send and
 * authorization steps against a scripted SriClient (every branch of CONTRACT §15's lifecycle),
 * the numbering read back from an access key, and the stored `autorizacion` XML.
 */
import { describe, expect, it } from 'vitest';
import { DOMParser } from '@xmldom/xmldom';
import { SriHttpError, SriRequestError, SriUnreachable, type AutorizacionAnswer, type RecepcionAnswer, type SriClient } from '../../../core/fiscal/sri/index.js';
import { autorizacionXml, cdata } from '../../../core/fiscal/submissions/autorizacion-xml.js';
import { authorizeStep } from '../../../core/fiscal/submissions/authorize-step.js';
import { pastGiveUp, RECEPTION_RETRY_S, retryDelayMs, UNKNOWN_AFTER_45_LIMIT } from '../../../core/fiscal/submissions/schedule.js';
import { sendStep, type SriStepDeps } from '../../../core/fiscal/submissions/send-step.js';
import { numberingOf } from '../../../core/fiscal/submissions/sign-step.js';
import type { ClaimedSubmission } from '../../../core/fiscal/submissions/store.js';
import { sampleNumbering } from '../../helpers/sri-invoices.js';

const NOW = Date.parse('2026-03-10T15:00:00Z');
const KEY = sampleNumbering({ secuencial: '000000042' }).accessKey;
const SIGNED = Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\n<factura id="comprobante" version="2.1.0"><x>a]]>b</x></factura>\n');

function row(over: Partial<ClaimedSubmission> = {}): ClaimedSubmission {
  return {
    document_id: 'doc-1',
    book_id: 'book-1',
    environment: 'test',
    country: 'EC',
    kind: 'invoice',
    computed: '{}',
    issuer: '{}',
    certificate_id: 'cert-1',
    access_key: KEY,
    signed_xml: SIGNED,
    state: 'signed',
    attempts: 0,
    due_at: NOW,
    lease_until: NOW + 1000,
    unreachable_since: null,
    last_error: null,
    reception: null,
    ...over,
  };
}

function client(answer: { recepcion?: RecepcionAnswer | Error; autorizacion?: AutorizacionAnswer | Error }): SriClient {
  const settle = <T>(a: T | Error | undefined): Promise<T> => (a instanceof Error ? Promise.reject(a) : a ? Promise.resolve(a) : Promise.reject(new Error('not scripted')));
  return {
    validarComprobante: () => settle(answer.recepcion),
    autorizacionComprobante: () => settle(answer.autorizacion),
    readPurchase: () => Promise.reject(new Error('not scripted')),
    abortAll: () => undefined,
    close: () => undefined,
  };
}

function deps(sri: SriClient): SriStepDeps {
  return { sri, urls: { sriTestUrl: 'http://127.0.0.1:1/ws', sriProductionUrl: 'https://cel.sri.gob.ec/ws' }, timeScale: 1, giveUpHours: 72, now: () => NOW, random: () => 0.5 };
}

const msg = (identificador: string, mensaje: string, informacionAdicional?: string) => ({ identificador, mensaje, tipo: 'ERROR', ...(informacionAdicional ? { informacionAdicional } : {}) });

describe('schedule', () => {
  it('retries follow the table, the last entry repeats, ±20 % and the time scale', () => {
    expect(retryDelayMs(RECEPTION_RETRY_S, 1, 1, () => 0.5)).toBe(5_000);
    expect(retryDelayMs(RECEPTION_RETRY_S, 2, 1, () => 0.5)).toBe(30_000);
    expect(retryDelayMs(RECEPTION_RETRY_S, 99, 1, () => 0.5)).toBe(3_600_000);
    expect(retryDelayMs(RECEPTION_RETRY_S, 1, 1, () => 0)).toBe(4_000);
    expect(retryDelayMs(RECEPTION_RETRY_S, 1, 1, () => 1)).toBe(6_000);
    expect(retryDelayMs(RECEPTION_RETRY_S, 1, 0.001, () => 0.5)).toBe(5);
  });

  it('gives up only past the limit, counted from the first failure of the run', () => {
    expect(pastGiveUp(null, NOW, 72)).toBe(false);
    expect(pastGiveUp(new Date(NOW - 72 * 3_600_000).toISOString(), NOW, 72)).toBe(false);
    expect(pastGiveUp(new Date(NOW - 72 * 3_600_000 - 1).toISOString(), NOW, 72)).toBe(true);
  });
});

describe('the send step', () => {
  it('RECIBIDA → sent', async () => {
    expect(await sendStep(row(), deps(client({ recepcion: { estado: 'RECIBIDA', mensajes: [] } })))).toEqual({ kind: 'sent', reception: 'RECIBIDA', note: null });
  });

  it('DEVUELTA 43, 45 or 70 → sent, to ask the authorization (43 and 70 preferred over 45)', async () => {
    for (const [codes, expected] of [[['43'], '43'], [['70'], '70'], [['45'], '45'], [['45', '43'], '43']] as const) {
      const answer: RecepcionAnswer = { estado: 'DEVUELTA', mensajes: codes.map((c) => msg(c, `M${c}`)) };
      const out = await sendStep(row(), deps(client({ recepcion: answer })));
      expect(out).toMatchObject({ kind: 'sent', reception: expected });
    }
  });

  it('another DEVUELTA → rejected with every message as the SRI wrote it', async () => {
    const answer: RecepcionAnswer = { estado: 'DEVUELTA', mensajes: [msg('65', 'FECHA EMISIÓN EXTEMPORANEA', 'fuera de rango'), msg('35', 'ARCHIVO NO CUMPLE ESTRUCTURA XML')] };
    expect(await sendStep(row(), deps(client({ recepcion: answer })))).toEqual({
      kind: 'rejected',
      reason: '65: FECHA EMISIÓN EXTEMPORANEA (fuera de rango); 35: ARCHIVO NO CUMPLE ESTRUCTURA XML',
    });
  });

  it('unreachable → retry on the schedule, the give-up clock started; past the limit → failed', async () => {
    const down = new SriUnreachable('refused', 'Conexión rechazada');
    expect(await sendStep(row(), deps(client({ recepcion: down })))).toEqual({ kind: 'retry', dueAt: NOW + 5_000, error: 'Conexión rechazada', unreachable: true, counted: true });
    const long = row({ unreachable_since: new Date(NOW - 73 * 3_600_000).toISOString(), attempts: 40 });
    const out = await sendStep(long, deps(client({ recepcion: down })));
    expect(out.kind).toBe('failed');
    expect(out.kind === 'failed' && out.reason).toMatch(/más de 72 h.*Conexión rechazada/);
  });

  it('a 4xx is retried like an outage; a request Sello could not make fails at once; shutdown is not an attempt', async () => {
    expect((await sendStep(row(), deps(client({ recepcion: new SriHttpError(404, 'HTTP 404') })))).kind).toBe('retry');
    expect((await sendStep(row(), deps(client({ recepcion: new SriRequestError('XML vacío') })))).kind).toBe('failed');
    expect(await sendStep(row(), deps(client({ recepcion: new SriUnreachable('interrupted', 'detenido') })))).toEqual({ kind: 'interrupted' });
  });
});

describe('the authorization step', () => {
  const auth = (a: AutorizacionAnswer) => deps(client({ autorizacion: a }));

  it('an AUTORIZADO anywhere in the list → authorized, with the XML around the exact bytes sent', async () => {
    const out = await authorizeStep(
      row({ state: 'sent', reception: 'RECIBIDA' }),
      auth({
        autorizaciones: [
          { estado: 'NO AUTORIZADO', mensajes: [msg('39', 'FIRMA INVALIDA')] },
          { estado: 'AUTORIZADO', numeroAutorizacion: KEY, fechaAutorizacion: '2026-03-10T10:15:30-05:00', ambiente: 'PRUEBAS', comprobante: 'otra copia', mensajes: [] },
        ],
      }),
    );
    expect(out).toMatchObject({ kind: 'authorized', number: KEY, date: '2026-03-10T10:15:30-05:00', estado: 'AUTORIZADO' });
    const xml = out.kind === 'authorized' ? out.xml : '';
    const root = new DOMParser().parseFromString(xml, 'text/xml').documentElement!;
    expect(root.getElementsByTagName('comprobante')[0]!.textContent).toBe(SIGNED.toString('utf8'));
  });

  it('EN PROCESO or a key not known yet after RECIBIDA → asked again; NO AUTORIZADO → rejected', async () => {
    expect((await authorizeStep(row({ state: 'sent', reception: 'RECIBIDA' }), auth({ autorizaciones: [{ estado: 'EN PROCESO', mensajes: [] }] }))).kind).toBe('retry');
    expect((await authorizeStep(row({ state: 'sent', reception: 'RECIBIDA', attempts: 30 }), auth({ autorizaciones: [] }))).kind).toBe('retry');
    expect(await authorizeStep(row({ state: 'sent', reception: 'RECIBIDA' }), auth({ autorizaciones: [{ estado: 'NO AUTORIZADO', mensajes: [msg('39', 'FIRMA INVALIDA', 'revocado')] }] }))).toEqual({
      kind: 'rejected',
      reason: '39: FIRMA INVALIDA (revocado)',
    });
  });

  it('after a 45, a key the SRI does not know ends rejected with the 45 message once it had its moment', async () => {
    const after45 = (attempts: number) => row({ state: 'sent', reception: '45', attempts, last_error: '45: ERROR SECUENCIAL REGISTRADO' });
    expect((await authorizeStep(after45(0), auth({ autorizaciones: [] }))).kind).toBe('retry');
    expect(await authorizeStep(after45(UNKNOWN_AFTER_45_LIMIT - 1), auth({ autorizaciones: [] }))).toEqual({ kind: 'rejected', reason: '45: ERROR SECUENCIAL REGISTRADO' });
  });

  it('the service unreachable while sent: asked again, never failed', async () => {
    const out = await authorizeStep(row({ state: 'sent', reception: 'RECIBIDA', unreachable_since: new Date(NOW - 500 * 3_600_000).toISOString() }), deps(client({ autorizacion: new SriUnreachable('timeout', 'tiempo agotado') })));
    expect(out.kind).toBe('retry');
  });
});

describe('numbering and the stored XML', () => {
  it('reads the numbering back from the access key', () => {
    expect(numberingOf(KEY)).toEqual(sampleNumbering({ secuencial: '000000042' }));
  });

  it('CDATA holds any text, `]]>` included', () => {
    expect(cdata('a]]>b')).toBe('<![CDATA[a]]]]><![CDATA[>b]]>');
    const xml = autorizacionXml({ estado: 'AUTORIZADO', numeroAutorizacion: KEY, fechaAutorizacion: 'x', ambiente: 'PRUEBAS', mensajes: [msg('60', 'A & B <c>')] }, SIGNED);
    const doc = new DOMParser().parseFromString(xml, 'text/xml');
    expect(doc.getElementsByTagName('comprobante')[0]!.textContent).toBe(SIGNED.toString('utf8'));
    expect(doc.getElementsByTagName('mensaje')[1]!.textContent).toBe('A & B <c>');
  });
});
