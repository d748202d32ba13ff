import crypto from 'node:crypto';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
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
import { purchaseResource, purchaseRoutes } from './http/resources/purchases.js';
import { createPurchases } from './fiscal/purchases/index.js';
import { createSriClient } from './fiscal/sri/index.js';
import { fiscalAdminRoutes } from './http/admin/fiscal.js';
import { comprobanteAdminRoutes } from './http/admin/comprobantes.js';
import { purchaseAdminRoutes } from './http/admin/purchases.js';
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
import { createLanServer } from './http/lan-server.js';
import { bareHost, checkTlsSettings, interfaceAddresses, isWildcardHost, openServerTls, type ServerTls } from './tls/index.js';

export interface Agent {
  /** `http://127.0.0.1:8437`; on an address beyond loopback, `https://192.168.1.20:8437` (CONTRACT §2). */
  baseUrl: string;
  /**
   * Plain HTTP on this machine's loopback, for the tray and a local ERP: `baseUrl` itself when
   * listening on loopback; `http://127.0.0.1:PORT` beside an HTTPS `baseUrl`.
   */
  localUrl: string;
  /** The certificate of an HTTPS `baseUrl` (it may be made again while running), undefined on loopback. */
  tls(): TlsSummary | undefined;
  /** One-time URL of the admin UI: its token works once, for a session cookie (CONTRACT §14). */
  adminUrl: string;
  /** Token of the admin API for automation (`Authorization: Bearer …` on `/admin/api`); never in a URL. */
  adminToken: string;
  /**
   * A new admin session for the Electron window, set as a cookie on `localUrl`
   * (`session.defaultSession.cookies.set({ url: localUrl, ...cookie })`), so the window
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

/** What `sello serve` and the Estado screen show of the LAN listener's certificate. */
export interface TlsSummary {
  source: 'generated' | 'configured';
  /** SHA-256 of the certificate, `AB:CD:…`. */
  fingerprint: string;
  certFile: string;
  /** The local CA to trust on the ERP's computer (generated certificates). */
  caFile: string | undefined;
  caFingerprint: string | undefined;
  notAfter: string;
  /** Its names and addresses, as a Host header carries them. */
  names: string[];
}

/** The latest the tokens are scanned after listening, when no request has come before (see startAgent). */
const TOKEN_SCAN_DELAY_MS = 1000;

/** How often a generated certificate is checked against the machine's addresses and its end. */
const TLS_REFRESH_MS = 10 * 60_000;

export { openDataStore, storeFile, withDataStore } from './data-store.js';

/**
 * The composition root: opens the data folder, wires every part with its
 * dependencies, listens, and returns what stops it all in reverse order.
 */
export interface StartOptions {
  log?: Logger;
  /** The PDF thread's entry: tests give one whose reader misbehaves on marked files. */
  pdfThreadEntry?: URL;
  /** How often a generated TLS certificate is checked against the machine's addresses (10 min); tests shorten it. */
  tlsRefreshMs?: number;
}

export async function startAgent(config: Config, options: StartOptions = {}): Promise<Agent> {
  const log = options.log ?? createLogger(config.logLevel);
  // CONTRACT §2: beyond loopback, HTTPS only. `--host` and a configured certificate are checked
  // before anything is written: a bad one is one line on the CLI and changes nothing.
  const lan = !LOOPBACK.has(config.host);
  const configuredTls = lan ? await checkTlsSettings(config) : undefined;
  prepareDataDir(config.dataDir);
  const unlock = lockDataDir(config.dataDir);
  const stops: Array<() => Promise<void> | void> = [unlock];
  try {
    const store = await openDataStore(config.dataDir);
    stops.push(() => store.close());
    syncCatalogs(store);
    const freed = releaseAbandonedIdempotencyKeys(store);
    if (freed > 0) log.warn('released idempotency keys left running by a previous process', { count: freed });

    // Generated into the data folder (or made again) only now, with the folder locked.
    const tls = lan ? await openServerTls(config, configuredTls) : undefined;
    if (tls) {
      const cert = tls.current();
      log.info('tls certificate', { source: cert.source, renewed: tls.opened ?? null, fingerprint: cert.fingerprint, notAfter: cert.notAfter.toISOString() });
      if (cert.source === 'configured' && cert.notAfter.getTime() - Date.now() < 30 * 86_400_000) {
        log.warn('the configured TLS certificate ends within 30 days', { notAfter: cert.notAfter.toISOString() });
      }
    }
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
    // Received purchases ask the SRI on a client of their own: a person waits on each answer,
    // never behind the submission engine's queue of retries.
    const purchaseSri = createSriClient({ caFile: config.caFile, maxSockets: 2 });
    stops.push(() => purchaseSri.close());
    const purchases = createPurchases({ store, sri: purchaseSri, urls: { sriTestUrl: config.sriTestUrl, sriProductionUrl: config.sriProductionUrl } });
    // CONTRACT §13: watched folders sign through signing requests; started after the worker, stopped before it.
    const folderWatcher = createFolderWatcher({ store, requests: signingRequests, worker: signingWorker, log: log.child({ module: 'watch' }), settings: watchSettings() });

    // Roots that verified PDFs' signers may chain to (SELLO_TRUST_ROOTS): a bad file stops the start, like any setting.
    const configuredRoots = config.trustRoots ? await readTrustRoots(config.trustRoots) : [];

    // Set once the server listens; the status route reads it lazily.
    let baseUrl = '';
    let localUrl = '';
    const readCache = createResponseCache({ maxEntries: 2000, maxBytes: 32 * 1024 * 1024 });
    const listener = createHttpApp({
      readCache,
      store,
      log,
      limiter: createRateLimiter(config.rateLimitPerMinute),
      admin: adminSessions,
      extraHostNames: tls ? tls.hostNames : config.extraHostNames,
      routes: [
        ...apiV1Routes(store, [webhookEndpointResource(endpoints), identificationTypeResource, taxTypeResource, signatureRequestResource(store), purchaseResource()], readCache),
        ...documentRoutes(store, documents, (id) => isIssuedDocument(store, id)),
        ...invoiceRoutes(invoices),
        ...purchaseRoutes(purchases, invoices),
        ...issuerRoutes(store),
        ...downloadRoutes(documents, pdfs, { trustAnchors: async () => [...(await testCaAnchors(config.dataDir)), ...configuredRoots] }, invoices),
        ...signingRequestRoutes(store, signingRequests),
        ...signingAdminRoutes(signingRequests),
        ...certificateRoutes(store),
        ...certificateAdminRoutes({ store, secrets, dataDir: config.dataDir }),
        ...folderAdminRoutes(store, folderWatcher),
        ...deliveryAdminRoutes(store, delivery),
        ...fiscalAdminRoutes({ store, pins }),
        ...comprobanteAdminRoutes({ store, rides: invoices }),
        ...purchaseAdminRoutes({ store, purchases }),
        // CONTRACT §14: what the admin UI needs besides the routes above.
        ...statusAdminRoutes({ store, requests: signingRequests, baseUrl: () => baseUrl, localUrl: () => localUrl, tls: () => (tls ? tlsSummary(tls) : undefined), pkcs11Modules: config.pkcs11Modules }),
        ...bookAdminRoutes(store),
        ...apiKeyAdminRoutes(store),
        ...webhookEndpointAdminRoutes(store, endpoints),
        ...issuerAdminRoutes(store),
        ...activityAdminRoutes(store),
        ...uiRoutes(adminSessions),
      ],
    });

    const servers: http.Server[] = [];
    const listen = async (server: http.Server, port: number, host: string): Promise<number> => {
      servers.push(server);
      server.on('clientError', answerClientError);
      server.keepAliveTimeout = 65_000;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve();
        });
      }).catch((err: NodeJS.ErrnoException) => {
        // The address went away between the check and the listen, or a name that resolves elsewhere.
        if (err.code === 'EADDRNOTAVAIL') throw new ConfigError(`La dirección ${host} no es de este equipo; sus direcciones son ${interfaceAddresses().join(', ')}.`);
        throw err;
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
      return (server.address() as AddressInfo).port;
    };

    if (tls) {
      const cert = () => ({ cert: tls.current().certPem, key: tls.current().keyPem });
      const server = createLanServer(listener, cert());
      const port = await listen(server, config.port, bareHost(config.host));
      baseUrl = `https://${lanAuthority(config.host)}:${port}`;
      localUrl = `http://127.0.0.1:${port}`;
      // On one address of the LAN, loopback is not covered: the tray and a local ERP get their own
      // plain listener on 127.0.0.1, same port (on 0.0.0.0 and ::, the LAN listener serves them).
      if (!isWildcardHost(config.host)) await listen(http.createServer(listener), port, '127.0.0.1');
      // A laptop that gets a new address, or a certificate near its end: made again, served at once.
      const refresh = setInterval(() => {
        tls.refresh().then(
          (renewed) => {
            if (renewed === undefined) return;
            server.setSecureContext({ ...cert(), minVersion: 'TLSv1.2' });
            log.info('tls certificate renewed', { reason: renewed, fingerprint: tls.current().fingerprint });
          },
          (err: unknown) => log.error('tls certificate renewal failed', { err: String(err) }),
        );
      }, options.tlsRefreshMs ?? TLS_REFRESH_MS);
      refresh.unref();
      stops.push(() => clearInterval(refresh));
    } else {
      const port = await listen(http.createServer(listener), config.port, config.host);
      const host = config.host.includes(':') && !config.host.startsWith('[') ? `[${config.host}]` : config.host;
      baseUrl = `http://${host}:${port}`;
      localUrl = baseUrl;
    }
    log.info('listening', { baseUrl, localUrl, dataDir: config.dataDir });
    // In the background, once the first request has been answered (or TOKEN_SCAN_DELAY_MS after
    // listening, if none comes first): loading a token's driver blocks this thread (dlopen and
    // C_Initialize, 16–30 ms with SoftHSM and OpenSC), and must not delay the API's first answer.
    // Stopping cancels a scan not yet begun and waits for one under way.
    let tokenScan: Promise<void> | undefined;
    let tokenScanCancelled = false;
    const tokenScanTimer = setTimeout(() => scanTokens(), TOKEN_SCAN_DELAY_MS);
    tokenScanTimer.unref();
    const scanTokens = () => {
      clearTimeout(tokenScanTimer);
      if (!tokenScanCancelled) tokenScan ??= scanConfiguredTokens(store, config.pkcs11Modules, log);
    };
    for (const server of servers) server.once('request', (_req: http.IncomingMessage, res: http.ServerResponse) => res.once('close', scanTokens));
    stops.push(() => {
      tokenScanCancelled = true;
      clearTimeout(tokenScanTimer);
      return tokenScan;
    });
    delivery.start();
    submissions.start();
    signingWorker.start();
    stops.push(() => folderWatcher.stop());
    await folderWatcher.start();

    let stopped: Promise<void> | undefined;
    return {
      baseUrl,
      localUrl,
      tls: () => (tls ? tlsSummary(tls) : undefined),
      // The one-time link opens on this machine, where the browser trusts plain loopback.
      adminUrl: `${localUrl}/ui/?token=${adminSessions.loginToken}`,
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

function tlsSummary(tls: ServerTls): TlsSummary {
  const cert = tls.current();
  return {
    source: cert.source,
    fingerprint: cert.fingerprint,
    certFile: cert.certFile,
    caFile: cert.caFile,
    caFingerprint: cert.caFingerprint,
    notAfter: cert.notAfter.toISOString(),
    names: [...cert.names.dns, ...cert.names.ips.map((ip) => (ip.includes(':') ? `[${ip}]` : ip))],
  };
}

/**
 * The host of an HTTPS base URL: the address given, or for 0.0.0.0 and :: the first address of
 * the LAN (IPv4 first: what an office's ERP most likely reaches), else localhost. `sello serve`
 * lists every name the certificate carries besides.
 */
function lanAuthority(host: string): string {
  const bare = bareHost(host);
  if (!isWildcardHost(bare)) return bare.includes(':') ? `[${bare}]` : bare;
  const addresses = Object.values(os.networkInterfaces()).flatMap((list) => list ?? []).filter((a) => !a.internal);
  const v4 = addresses.find((a) => a.family === 'IPv4');
  const v6 = bare.includes(':') ? addresses.find((a) => a.family === 'IPv6' && !a.address.startsWith('fe80:')) : undefined;
  if (v4) return v4.address;
  if (v6) return `[${v6.address}]`;
  return 'localhost';
}
