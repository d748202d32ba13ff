/**
 * Applies the signatures of `processing` requests (CONTRACT §11), in the background,
 * never inside an HTTP request. Per request, one pass at a time: take the first signature
 * not yet applied; a software key (test, .p12) signs at once; a token key signs only with
 * a PIN the user gave (pin-cache.ts), otherwise the signature waits for approval. The PDF is
 * read and signed on the PDF thread (core/signing/pdf-thread), never here. Each applied
 * signature is one incremental update (core/pdf) committed with the new PDF in one
 * transaction, so a crash loses nothing and the next start resumes where it stopped.
 * The last one marks the request `signed`, sets the hashes and enqueues the callback in
 * that same transaction (CONTRACT §9: "a durable row written in the same transaction").
 *
 * A failure that a person can fix on the token's side (failure-policy.ts) leaves the signature
 * waiting for approval; any other ends the signature and the request `failed`, with the failure
 * callback in the same transaction: never resumed at start, never tried again by itself.
 */
import type { KeySource } from '../key-sources/index.js';
import type { CertificateRow } from '../../certificates/index.js';
import { isStorageFault, type Store } from '../../db/index.js';
import type { DeliveryEngine } from '../../delivery/index.js';
import { SelloError, isSelloError } from '../../errors/index.js';
import type { Logger } from '../../log/index.js';
import type { SecretBox } from '../../secrets/index.js';
import { openKeySource } from '../key-source-for.js';
import { qrText } from '../qr-text.js';
import { PdfThreadStopped, type PdfThread } from '../pdf-thread/index.js';
import { buildCallbackBody, buildFailureCallbackBody } from './callback-body.js';
import { certificateRow, holdsSoftwareKeys } from './certificates-port.js';
import { waitsForPerson } from './failure-policy.js';
import type { PinCache } from './pin-cache.js';
import {
  currentPdf,
  documentsOf,
  findRequest,
  markRequestFailed,
  markSignatureFailed,
  markSigned,
  nextSignature,
  processingRequestIds,
  recordAttempt,
  recordFailure,
  recordSigned,
  signedDocuments,
  type SignatureRow,
} from './store.js';
import { tokenStatus } from './token-status.js';
import crypto from 'node:crypto';

export interface SigningWorker {
  /** Resumes every `processing` request (after a crash or a restart). */
  start(): void;
  /** Runs a pass over `requestId`; resolves when it stops (signed, waiting for a PIN, or ended `failed`). */
  run(requestId: string): Promise<void>;
  /** Passes over every `processing` request (after an approval). */
  runAll(): Promise<void>;
  stop(): Promise<void>;
}

export interface SigningWorkerDeps {
  store: Store;
  secrets: SecretBox;
  log: Logger;
  delivery: Pick<DeliveryEngine, 'enqueueCallback' | 'wake'>;
  pins: PinCache;
  tsaUrl?: string | undefined;
  caFile?: string | undefined;
  /** Where PDFs are read and signed: never on this thread. */
  pdfs: PdfThread;
}

/**
 * A pass stopped by a full disk or a database locked by another program is run again after
 * this long. Nothing of it was recorded (each step is one transaction), so the signature is
 * simply applied again; it is not a failure for a person to approve.
 */
const STORAGE_RETRY_MS = 2_000;

export function createSigningWorker(deps: SigningWorkerDeps): SigningWorker {
  const { store, secrets, log, delivery, pins, pdfs } = deps;
  /** Requests waiting to be passed over again after a storage fault. */
  const retries = new Map<string, NodeJS.Timeout>();
  /** The pass running per request, and at most one queued behind it. */
  const running = new Map<string, Promise<void>>();
  const queued = new Map<string, Promise<void>>();
  /** Software keys, opened once: a .p12 costs a key derivation to open. */
  const software = new Map<string, Promise<KeySource>>();
  /** Tokens do one operation at a time (ENGINEERING.md): every token signature goes through this. */
  let tokenQueue: Promise<unknown> = Promise.resolve();
  let stopping = false;

  function run(requestId: string): Promise<void> {
    if (stopping) return Promise.resolve();
    const waiting = queued.get(requestId);
    if (waiting) return waiting;
    const before = running.get(requestId);
    const start = (): Promise<void> => {
      queued.delete(requestId);
      const p = pass(requestId)
        .catch((err: unknown) => {
          if (isStorageFault(err)) retryLater(requestId, err.code);
          else log.error('signing pass crashed', { requestId, err });
        })
        .finally(() => {
          if (running.get(requestId) === p) running.delete(requestId);
        });
      running.set(requestId, p);
      return p;
    };
    if (!before) return start();
    const next = before.then(start);
    queued.set(requestId, next);
    return next;
  }

  function retryLater(requestId: string, code: string): void {
    if (stopping || retries.has(requestId)) return;
    log.warn('signing postponed: the store cannot be written', { requestId, code, retryMs: STORAGE_RETRY_MS });
    const timer = setTimeout(() => {
      retries.delete(requestId);
      void run(requestId);
    }, STORAGE_RETRY_MS);
    timer.unref();
    retries.set(requestId, timer);
  }

  async function pass(requestId: string): Promise<void> {
    for (;;) {
      if (stopping) return;
      const request = findRequest(store, requestId);
      if (!request || request.status !== 'processing') return;
      const signature = nextSignature(store, requestId);
      if (!signature) {
        // Every signature applied but the request not closed (a crash between two commits cannot
        // leave this, but a hand-edited store could): close it now.
        if (store.transaction(() => finish(requestId, new Date()))?.callback) delivery.wake();
        return;
      }
      // A rejected signature stops the request; a failure of the token's side waits for a person (approve again).
      if (signature.state === 'rejected') return;
      if (signature.last_error_code !== null) {
        // Recorded as waiting by a Sello from before failures were final: ended now, with its callback.
        if (!waitsForPerson(signature.last_error_code)) endFailed(signature, { code: signature.last_error_code, message: signature.last_error ?? signature.last_error_code }, null);
        return;
      }
      const cert = certificateRow(store, signature.certificate_id);
      if (!cert) {
        endFailed(signature, { code: 'certificate_not_found', message: `No existe el certificado ${signature.certificate_id}.` }, null);
        return;
      }
      if (cert.source === 'token' && !(cert.token_serial && pins.has(cert.token_serial))) return; // waits for approval
      // Checked again inside the token queue: a wrong PIN found by another request meanwhile
      // has been forgotten, and must not be tried a second time (CONTRACT §11).
      const serial = cert.token_serial ?? '';
      const goOn =
        cert.source === 'token'
          ? await onToken(() => (pins.has(serial) ? apply(requestId, signature, cert) : Promise.resolve(false)))
          : await apply(requestId, signature, cert);
      if (!goOn) return;
    }
  }

  function onToken<T>(fn: () => Promise<T>): Promise<T> {
    const p = tokenQueue.then(fn, fn);
    tokenQueue = p.catch(() => undefined);
    return p;
  }

  async function keySource(cert: CertificateRow): Promise<{ source: KeySource; close(): Promise<void> }> {
    if (cert.source !== 'token') {
      // Kept as a promise: passes starting together open it once.
      let source = software.get(cert.id);
      if (!source) {
        source = openKeySource(cert, { secrets, pin: () => Promise.reject(new SelloError('pin_required')) }).then((opened) => opened.source);
        software.set(cert.id, source);
        source.catch(() => software.delete(cert.id));
      }
      return { source: await source, close: async () => undefined };
    }
    return openKeySource(cert, {
      secrets,
      pin: async (req) => {
        const pin = pins.get(req.tokenSerial);
        if (pin === undefined) throw new SelloError('pin_required');
        return pin;
      },
    });
  }

  /**
   * Applies one signature; true when the pass goes on to the next one, false when it stops here
   * (the request signed, or a failure recorded).
   */
  async function apply(requestId: string, signature: SignatureRow, cert: CertificateRow): Promise<boolean> {
    const signedAt = new Date();
    // A token's attempt is stored before its PIN is used, so that a crash cannot hide a try of
    // it; a key held here counts its attempt with its outcome, one commit less per signature.
    const countedBefore = cert.source === 'token';
    if (countedBefore) recordAttempt(store, signature.id, signedAt);
    let opened: { source: KeySource; close(): Promise<void> } | undefined;
    try {
      opened = await keySource(cert);
      // Handed to the PDF thread (a large one is transferred, not copied): `pdf` is not read again here.
      const { original, update } = await pdfs.sign(currentPdf(store, signature.document_id), opened.source, {
        signingTime: signedAt,
        stamp: {
          page: signature.page,
          x: signature.x,
          y: signature.y,
          size: signature.size,
          signerName: cert.subject_name,
          qrText: qrText({ signerName: cert.subject_name, signedAt, serialNumber: cert.serial_number }),
        },
        ...(deps.tsaUrl ? { timestampUrl: deps.tsaUrl } : {}),
        ...(deps.caFile ? { caFile: deps.caFile } : {}),
      });
      const signed = Buffer.concat([original, update]);
      // Shares its commit with the other signatures (and watched files) of this moment.
      const closed = await store.batch(() => {
        if (!countedBefore) recordAttempt(store, signature.id, signedAt);
        // More signatures to go, or this one settled meanwhile by another pass: the pass goes on and finds out.
        if (!recordSigned(store, signature, signed, signedAt) || nextSignature(store, requestId) !== undefined) return undefined;
        return finish(requestId, new Date());
      });
      if (!closed) return true;
      if (closed.callback) delivery.wake();
      log.info('signing request signed', { requestId });
      return false;
    } catch (err) {
      // Not the signature's fault: the pass stops here and runs again (run → retryLater).
      if (isStorageFault(err)) throw err;
      // Sello is stopping: nothing to record, the request is resumed at the next start.
      if (err instanceof PdfThreadStopped) return false;
      await fail(signature, cert, err, countedBefore ? null : signedAt);
      return false;
    } finally {
      await opened?.close().catch(() => undefined);
    }
  }

  /**
   * Records why a signature failed: waiting for a person, or ended with its request.
   * `attemptAt`: its attempt, when not counted yet.
   */
  async function fail(signature: SignatureRow, cert: CertificateRow, err: unknown, attemptAt: Date | null): Promise<void> {
    const code = isSelloError(err) ? err.code : 'internal_error';
    // Spanish and without a stack: this is what the ERP and the tray show. The stack goes to the log.
    const message = isSelloError(err) ? err.message : `Error interno al firmar. El registro de Sello tiene el detalle (firma ${signature.id}).`;
    let pinTries: string | null = null;
    if (cert.source === 'token' && cert.token_serial) {
      // CONTRACT §11: a wrong PIN is never retried by itself; forget it, report the tries left.
      if (code === 'pin_incorrect' || code === 'pin_locked') pins.forget(cert.token_serial);
      if (cert.token_module) pinTries = (await tokenStatus(cert.token_module, cert.token_serial)).pinTries;
    }
    if (!isSelloError(err)) log.error('signature failed', { signatureId: signature.id, err });
    else log.warn('signature failed', { signatureId: signature.id, code });
    if (!waitsForPerson(code)) {
      endFailed(signature, { code, message }, attemptAt);
      return;
    }
    store.transaction(() => {
      if (attemptAt) recordAttempt(store, signature.id, attemptAt);
      recordFailure(store, signature.id, { code, message, pinTries }, new Date());
    });
  }

  /**
   * A failure no approval can fix: the signature and its request end `failed`, and the failure
   * callback is enqueued, in one transaction.
   */
  function endFailed(signature: SignatureRow, failure: { code: string; message: string }, attemptAt: Date | null): void {
    const now = new Date();
    const ended = store.transaction(() => {
      if (attemptAt) recordAttempt(store, signature.id, attemptAt);
      if (!markSignatureFailed(store, signature.id, failure, now) || !markRequestFailed(store, signature.request_id, now)) return undefined;
      const request = findRequest(store, signature.request_id)!;
      if (!request.callback_url) return { callback: false };
      const body = buildFailureCallbackBody({ request, failedAt: now, failure: { ...failure, documentId: signature.document_id }, documents: documentsOf(store, request.id) });
      delivery.enqueueCallback({
        url: request.callback_url,
        bearerToken: request.callback_bearer_sealed ? secrets.open(request.callback_bearer_sealed) : undefined,
        body: JSON.stringify(body),
        requestId: request.id,
      });
      return { callback: true };
    });
    if (!ended) return;
    log.warn('signing request failed', { requestId: signature.request_id, code: failure.code });
    if (ended.callback) delivery.wake();
  }

  /**
   * Inside a transaction: hashes, `signed`, the callback row. When this call closed the request,
   * whether a callback waits to be delivered (the delivery engine is woken after the commit).
   */
  function finish(requestId: string, now: Date): { callback: boolean } | undefined {
    const documents = signedDocuments(store, requestId).map((d) => ({ ...d, hash: crypto.createHash('sha256').update(d.pdf).digest('hex') }));
    if (!markSigned(store, requestId, new Map(documents.map((d) => [d.id, d.hash])), now)) return undefined;
    const request = findRequest(store, requestId)!;
    if (!request.callback_url) return { callback: false };
    const signatures = store.all(store.db.selectFrom('signing_signatures').selectAll().where('request_id', '=', requestId).orderBy('position'));
    const certificates = new Map(signatures.map((s) => [s.certificate_id, certificateRow(store, s.certificate_id)]));
    const body = buildCallbackBody({ request, signedAt: now, signatures, certificates, documents });
    delivery.enqueueCallback({
      url: request.callback_url,
      bearerToken: request.callback_bearer_sealed ? secrets.open(request.callback_bearer_sealed) : undefined,
      body: JSON.stringify(body),
      requestId,
    });
    return { callback: true };
  }

  return {
    start() {
      // An office that holds keys signs soon: the PDF thread is loaded before the first file.
      if (holdsSoftwareKeys(store)) pdfs.warm();
      for (const id of processingRequestIds(store)) void run(id);
    },
    run,
    async runAll() {
      await Promise.all(processingRequestIds(store).map((id) => run(id)));
    },
    async stop() {
      stopping = true;
      for (const timer of retries.values()) clearTimeout(timer);
      retries.clear();
      const all = Promise.all([...running.values(), ...queued.values()]);
      await Promise.race([all, new Promise((r) => setTimeout(r, 10_000).unref())]);
    },
  };
}
