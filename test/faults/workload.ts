/**
 * The mixed workload the faults run against: an ERP that creates documents and changes their
 * status (each change of a live document is a webhook event), an ERP that creates signing
 * requests with `send: true` and a callback, and a person dropping PDFs into a watched folder.
 * Each producer behaves as its real counterpart would through kills and errors: it retries
 * with the same `external_ref` / `Idempotency-Key` until it gets an answer, and it counts a
 * piece of work as expected only once Sello acknowledged it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { makeLargePdf } from '../helpers/pdf-fixtures.js';
import { distinctPdfs } from '../helpers/watch-files.js';
import { persist, sleep, type Answer, type Office, type SelloUnderTest } from './harness.js';

export const ENDPOINT_SECRET = 'secreto-de-fallas-largo-y-aleatorio';

/** The event types each workload document emits: rejected first, then authorized. */
export const EVENT_TYPES = ['document.rejected', 'document.authorized'] as const;

export interface WorkloadDeps {
  sello: SelloUnderTest;
  office: Office;
  /** HTTPS URL of the receiver: webhook endpoint and callbacks. */
  receiverUrl: string;
  random: () => number;
  /** Every call gives up (and fails the scenario) after this. */
  deadline: () => number;
}

export class Workload {
  /** external_ref → id: both status changes acknowledged. */
  readonly documents = new Map<string, string>();
  /** reference_id → request id and its number of signatures: creation acknowledged. */
  readonly requests = new Map<string, { id: string; signatures: number }>();
  /** Name → bytes of every file dropped into the watched folder. */
  readonly dropped = new Map<string, Buffer>();
  /** Answers that were not final (5xx, 409 in_progress…), for the envelope checks. */
  readonly transients: Answer[] = [];
  /** Unexpected final answers: a failed scenario. */
  readonly problems: string[] = [];
  private stopping = false;
  private documentSeq = 0;
  private requestSeq = 0;

  constructor(private readonly d: WorkloadDeps) {}

  /** Producers finish the piece they are on and take no new one. */
  stop(): void {
    this.stopping = true;
  }

  get stopped(): boolean {
    return this.stopping;
  }

  private persist(method: string, p: string, headers: Record<string, string>, body: unknown): Promise<Answer> {
    return persist(this.d.sello, method, p, { headers, body, deadline: this.d.deadline(), onTransient: (a) => this.transients.push(a) });
  }

  /** Creates the webhook endpoint of the book (once, before the faults). */
  async createEndpoint(): Promise<string> {
    const a = await this.persist(
      'POST',
      '/api/v1/webhook-endpoints',
      { Authorization: `Bearer ${this.d.office.bookKey}`, 'Content-Type': 'application/vnd.api+json', Accept: 'application/vnd.api+json' },
      { data: { type: 'webhook_endpoint', attributes: { url: this.d.receiverUrl, secret: ENDPOINT_SECRET, events: [] } } },
    );
    if (a.status !== 201) throw new Error(`endpoint: ${a.status} ${a.text}`);
    return (a.json as { data: { id: string } }).data.id;
  }

  readonly bookHeaders = (): Record<string, string> => ({ Authorization: `Bearer ${this.d.office.bookKey}` });
  readonly apiHeaders = (ref: string): Record<string, string> => ({ 'X-Api-Key': this.d.office.apiKey, 'Idempotency-Key': ref });

  /** Document number `n`: its `external_ref` and body (the same on every retry). */
  documentBody(n: number): { ref: string; body: Record<string, unknown> } {
    const ref = `FAL-${String(n).padStart(6, '0')}`;
    return {
      ref,
      body: { external_ref: ref, country: 'EC', doc_type: 'invoice', numero: `001-002-${String(n).padStart(9, '0')}`, issue_date: '2026-11-21', currency: 'USD', grand_total: `${10 + (n % 90)}.00` },
    };
  }

  /** One document through pending → rejected → authorized: two events. `n` defaults to the next number. */
  async oneDocument(n = this.documentSeq++): Promise<void> {
    const { ref, body } = this.documentBody(n);
    const headers = this.bookHeaders();
    const created = await this.persist('POST', '/api/v1/documents', headers, body);
    if (created.status !== 201) {
      this.problems.push(`POST /api/v1/documents ${ref}: ${created.status} ${created.text.slice(0, 200)}`);
      return;
    }
    const id = (created.json as { data: { id: string } }).data.id;
    const rejected = await this.persist('POST', `/api/v1/documents/${id}/status`, headers, { status: 'rejected', failure_reason: 'Clave de acceso en procesamiento' });
    const authorized =
      rejected.status === 200
        ? await this.persist('POST', `/api/v1/documents/${id}/status`, headers, {
            status: 'authorized',
            authorization: { status: 'AUTORIZADO', number: `AUT-${n}`, date: '2026-11-21T10:00:00-05:00' },
          })
        : rejected;
    if (authorized.status !== 200) {
      this.problems.push(`status of ${ref}: ${authorized.status} ${authorized.text.slice(0, 200)}`);
      return;
    }
    this.documents.set(ref, id);
  }

  /** Request number `n` with `signatures` signatures, one per page of `pdf`, `send: true` and a callback. */
  requestBody(n: number, pdf: Buffer, signatures: number): { ref: string; body: Record<string, unknown> } {
    const ref = `SOL-${String(n).padStart(6, '0')}`;
    return {
      ref,
      body: {
        subject: `Contrato ${n}`,
        reference_id: ref,
        callback_url: this.d.receiverUrl,
        send: true,
        documents: [
          {
            id: `doc-${n}`,
            title: `Contrato ${n}`,
            file_extension: 'pdf',
            document_base64: pdf.toString('base64'),
            signatures: Array.from({ length: signatures }, (_, i) => ({ signing_certificate: this.d.office.certificateId, page: String(i + 1), x: '36', y: '36', size: 's' })),
          },
        ],
      },
    };
  }

  /** One signing request (see `requestBody`), retried with its Idempotency-Key until answered. */
  async oneRequest(pdf: Buffer, signatures: number, n = this.requestSeq++): Promise<void> {
    const { ref, body } = this.requestBody(n, pdf, signatures);
    const a = await this.persist('POST', '/digital-signatures/signing-requests', this.apiHeaders(ref), body);
    if (a.status !== 200) {
      this.problems.push(`POST signing request ${ref}: ${a.status} ${a.text.slice(0, 200)}`);
      return;
    }
    this.requests.set(ref, { id: (a.json as { id: string }).id, signatures });
  }

  /**
   * A PDF with one page per signature, for `oneRequest`; 150 KB, so that each signature takes
   * a few milliseconds and a kill can find a request half-signed.
   */
  static requestPdf(signatures: number): Promise<Buffer> {
    return makeLargePdf(signatures, 150_000);
  }

  /** `workers` loops of `piece` until `max` pieces or `stop()`. */
  async loop(max: number, workers: number, piece: () => Promise<void>, pauseMs = 0): Promise<void> {
    let started = 0;
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (!this.stopping && started < max) {
          started++;
          await piece();
          if (pauseMs > 0) await sleep(pauseMs * (0.5 + this.d.random()));
        }
      }),
    );
  }

  runDocuments(max: number, workers = 2, pauseMs = 0): Promise<void> {
    return this.loop(max, workers, () => this.oneDocument(), pauseMs);
  }

  async runRequests(max: number, signatures: number, workers = 2, pauseMs = 0): Promise<void> {
    const pdf = await Workload.requestPdf(signatures);
    return this.loop(max, workers, () => this.oneRequest(pdf, signatures), pauseMs);
  }

  /**
   * Drops `max` distinct PDFs into `folder`, one every `everyMs` (± half), whether Sello runs
   * or not, as a scanner would. Written under a temporary name and renamed, as most programs do,
   * so that a kill of the test itself never leaves half a file.
   */
  async runFolder(folder: string, max: number, everyMs: number, prefix = 'factura'): Promise<void> {
    const files = await distinctPdfs(max, prefix);
    for (const [i, pdf] of files.entries()) {
      if (this.stopping) return;
      const name = `${prefix}-${String(i).padStart(5, '0')}.pdf`;
      const tmp = path.join(folder, `${name}.part`);
      await fs.promises.writeFile(tmp, pdf);
      await fs.promises.rename(tmp, path.join(folder, name));
      this.dropped.set(name, pdf);
      await sleep(everyMs * (0.5 + this.d.random()));
    }
  }
}
