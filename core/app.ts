import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import { createRateLimiter, releaseAbandonedIdempotencyKeys } from './auth/index.js';
import { syncCatalogs } from './catalogs/index.js';
import { ConfigError, type Config } from './config.js';
import { openDataStore } from './data-store.js';
import { readTrustRoots, testCaAnchors } from './certificates/index.js';
import { lockDataDir, prepareDataDir } from './data-dir.js';
import type { Store } from './db/index.js';
import { createHttpApp } from './http/app.js';
import { answerClientError } from './http/client-errors.js';
import { scanConfiguredTokens } from './signing/token-scan.js';
import { identificationTypeResource, taxTypeResource } from './http/resources/catalogs.js';
import { webhookEndpointResource } from './http/resources/webhook-endpoints.js';
import { apiV1Routes } from './http/routes.js';
import { createResponseCache } from './http/jsonapi/response-cache.js';
import { uiRoutes } from './http/ui.js';
import { createAdminSessions, type AdminCookie } from './http/admin-session.js';
import { createLogger, type Logger } from './log/index.js';
import { loadSecretBox } from './secrets/index.js';
import { createWebhookEndpoints } from './webhooks/index.js';
import { createDocuments } from './documents/index.js';
import { createDeliveryEngine, deliveryAdminRoutes, type DeliveryEngine } from './delivery/index.js';
import { version } from './version.js';
import { documentRoutes } from './http/resources/documents.js';
import { invoiceRoutes } from './http/resources/invoices.js';
import { fiscalAdminRoutes } from './http/admin/fiscal.js';
import { createInvoices, createRideThread } from './fiscal/invoices/index.js';
import { createSubmissionEngine, isIssuedDocument } from './fiscal/submissions/index.js';
import { identificationTypes, taxTypes } from './catalogs/index.js';
import { issuerRoutes } from './http/resources/issuer.js';
import { issuerAdminRoutes } from './http/admin/issuer.js';
import { downloadRoutes } from './http/family-a/downloads.js';
import { signingRequestRoutes } from './http/family-a/signing-requests.js';
import { signingAdminRoutes } from './http/admin/signing.js';
import { signatureRequestResource } from './http/resources/signature-requests.js';
import { createPinCache, createSigningRequests, createSigningWorker } from './signing/requests/index.js';
import { createPdfThread } from './signing/pdf-thread/index.js';
import { certificateRoutes } from './http/family-a/certificates.js';
import { certificateAdminRoutes } from './http/admin/certificates.js';
import { folderAdminRoutes } from './http/admin/folders.js';
import { statusAdminRoutes } from './http/admin/status.js';
import { bookAdminRoutes } from './http/admin/books.js';
import { apiKeyAdminRoutes } from './http/admin/api-keys.js';
import { webhookEndpointAdminRoutes } from './http/admin/webhook-endpoints.js';
import { activityAdminRoutes } from './http/admin/activity.js';
import { createFolderWatcher, watchSettings } from './watch/index.js';

export interface Agent {
  /** `http://127.0.0.1:8437` */
  baseUrl: string;
  /** One-time URL of the admin UI: its token works once, for a session cookie (CONTRACT §14). */
  adminUrl: string;
  /** Token of the admin API for automation (`Authorization: Bearer …` on `/admin/api`); never in a URL. */
  adminToken: string;
  /**
   * A new admin session for the Electron window, set as a cookie on `baseUrl`
   * (`session.defaultSession.cookies.set({ url: baseUrl, ...cookie })`), so the window
   * never needs the one-time URL.
   */
  issueAdminCookie(): AdminCookie;
  store: Store;
  /** The delivery engine: status changes enqueue into it inside their transaction, then wake it. */
  delivery: DeliveryEngine;
  /** Stops accepting requests, lets the ones in flight end, closes the store. */
  stop(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);

export { openDataStore, storeFile, withDataStore } from './data-store.js';

/**
 * The composition root: opens the data folder, wires every part with its
 * dependencies, listens, and returns what stops it all in reverse order.
 */
export interface StartOptions {
  log?: Logger;
  /** The PDF thread's entry: tests give one whose reader misbehaves on marked files. */
  pdfThreadEntry?: URL;
}

export async function startAgent(config: Config, options: StartOptions = {}): Promise<Agent> {
  const log = options.log ?? createLogger(config.logLevel);
  if (!LOOPBACK.has(config.host)) {
    // A setting the user chose: one line on the CLI, like every other ConfigError.
    throw new ConfigError(
      `Escuchar en ${config.host} requiere TLS, que esta versión todavía no configura. Use --host 127.0.0.1 (predeterminado).`,
    );
  }
  prepareDataDir(config.dataDir);
  const unlock = lockDataDir(config.dataDir);
  const stops: Array<() => Promise<void> | void> = [unlock];
  try {
    const store = await openDataStore(config.dataDir);
    stops.push(() => store.close());
    syncCatalogs(store);
    const freed = releaseAbandonedIdempotencyKeys(store);
    if (freed > 0) log.warn('released idempotency keys left running by a previous process', { count: freed });

    const secrets = loadSecretBox(config.dataDir);
    const endpoints = createWebhookEndpoints(store, secrets);
    const adminToken = crypto.randomBytes(32).toString('base64url');
    const adminSessions = createAdminSessions(adminToken);
    const delivery = createDeliveryEngine({
      store,
      secrets,
      log: log.child({ module: 'delivery' }),
      timeScale: config.deliveryTimeScale,
      caFile: config.caFile,
      retentionDays: config.deliveryRetentionDays,
      timeoutMs: config.deliveryTimeoutMs,
      userAgent: `Sello/${version}`,
    });
    // Stopped after the server (stops run in reverse): in-flight attempts drain and are recorded before the store closes.
    stops.push(() => delivery.stop());
    const documents = createDocuments(store, delivery);
    // CONTRACT §11: signing requests; the worker resumes what a previous process left processing.
    const pins = createPinCache({ store, secrets, ttlMs: config.pinCacheSeconds * 1000 });
    // Every PDF from outside is read and signed on a thread of its own, within a deadline and a
    // memory limit (core/signing/pdf-thread): a hostile file fails its job, never the agent.
    const pdfs = createPdfThread({
      log: log.child({ module: 'pdf-thread' }),
      deadlineMs: config.pdfDeadlineMs,
      memoryMb: config.pdfMemoryMb,
      ...(options.pdfThreadEntry ? { entry: options.pdfThreadEntry } : {}),
    });
    stops.push(() => pdfs.close());
    const signingWorker = createSigningWorker({ store, secrets, log: log.child({ module: 'signing' }), delivery, pins, tsaUrl: config.tsaUrl, caFile: config.caFile, pdfs });
    // Stopped after the server and before delivery (stops run in reverse).
    stops.push(() => signingWorker.stop());
    const signingRequests = createSigningRequests({ store, secrets, worker: signingWorker, pins, pdfs });
    // CONTRACT §15: issued documents go to the SRI through a durable job; stopped before delivery
    // (stops run in reverse), so the webhooks of its last outcomes are enqueued and drained.
    const submissions = createSubmissionEngine({
      store,
      sink: delivery,
      secrets,
      pins,
      log: log.child({ module: 'fiscal' }),
      settings: {
        sriTestUrl: config.sriTestUrl,
        sriProductionUrl: config.sriProductionUrl,
        signatureHash: config.sriSignatureHash,
        giveUpHours: config.sriGiveUpHours,
        timeScale: config.deliveryTimeScale,
        caFile: config.caFile,
      },
    });
    stops.push(() => submissions.stop());
    // RIDEs are rendered on a thread of their own: 50–500 ms of work each.
    const rideThread = createRideThread();
    stops.push(() => rideThread.close());
    const invoices = createInvoices({ store, documents, catalogs: { identificationTypes, taxTypes }, submissions, rides: rideThread });
    // CONTRACT §13: watched folders sign through signing requests; started after the worker, stopped before it.
    const folderWatcher = createFolderWatcher({ store, requests: signingRequests, worker: signingWorker, log: log.child({ module: 'watch' }), settings: watchSettings() });

    // Roots that verified PDFs' signers may chain to (SELLO_TRUST_ROOTS): a bad file stops the start, like any setting.
    const configuredRoots = config.trustRoots ? await readTrustRoots(config.trustRoots) : [];

    // Set once the server listens; the status route reads it lazily.
    let baseUrl = '';
    const readCache = createResponseCache({ maxEntries: 2000, maxBytes: 32 * 1024 * 1024 });
    const listener = createHttpApp({
      readCache,
      store,
      log,
      limiter: createRateLimiter(config.rateLimitPerMinute),
      admin: adminSessions,
      extraHostNames: config.extraHostNames,
      routes: [
        ...apiV1Routes(store, [webhookEndpointResource(endpoints), identificationTypeResource, taxTypeResource, signatureRequestResource(store)], readCache),
        ...documentRoutes(store, documents, (id) => isIssuedDocument(store, id)),
        ...invoiceRoutes(invoices),
        ...issuerRoutes(store),
        ...downloadRoutes(documents, pdfs, { trustAnchors: async () => [...(await testCaAnchors(config.dataDir)), ...configuredRoots] }, invoices),
        ...signingRequestRoutes(store, signingRequests),
        ...signingAdminRoutes(signingRequests),
        ...certificateRoutes(store),
        ...certificateAdminRoutes({ store, secrets, dataDir: config.dataDir }),
        ...folderAdminRoutes(store, folderWatcher),
        ...deliveryAdminRoutes(store, delivery),
        ...fiscalAdminRoutes({ store, pins }),
        // CONTRACT §14: what the admin UI needs besides the routes above.
        ...statusAdminRoutes({ store, requests: signingRequests, baseUrl: () => baseUrl, pkcs11Modules: config.pkcs11Modules }),
        ...bookAdminRoutes(store),
        ...apiKeyAdminRoutes(store),
        ...webhookEndpointAdminRoutes(store, endpoints),
        ...issuerAdminRoutes(store),
        ...activityAdminRoutes(store),
        ...uiRoutes(adminSessions),
      ],
    });

    const server = http.createServer(listener);
    server.on('clientError', answerClientError);
    server.keepAliveTimeout = 65_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(config.port, config.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    stops.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeIdleConnections();
          // Requests still running after 5 s are cut: a stop must not hang forever.
          setTimeout(() => server.closeAllConnections(), 5_000).unref();
        }),
    );

    const { port } = server.address() as AddressInfo;
    const host = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
    baseUrl = `http://${host}:${port}`;
    log.info('listening', { baseUrl, dataDir: config.dataDir });
    // In the background: a slow token driver must not delay the API. Stopping waits for it.
    const tokenScan = scanConfiguredTokens(store, config.pkcs11Modules, log);
    stops.push(() => tokenScan);
    delivery.start();
    submissions.start();
    signingWorker.start();
    stops.push(() => folderWatcher.stop());
    await folderWatcher.start();

    let stopped: Promise<void> | undefined;
    return {
      baseUrl,
      adminUrl: `${baseUrl}/ui/?token=${adminSessions.loginToken}`,
      adminToken,
      issueAdminCookie: () => adminSessions.issueCookie(),
      store,
      delivery,
      stop() {
        stopped ??= (async () => {
          for (const stop of stops.reverse()) await stop();
          log.info('stopped');
        })();
        return stopped;
      },
    };
  } catch (err) {
    for (const stop of stops.reverse()) await stop();
    throw err;
  }
}
