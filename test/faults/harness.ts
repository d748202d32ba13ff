/**
 * The faults suite's hands: one real `sello serve` that can be killed and started again on
 * the same data folder, an HTTP client that behaves like an ERP (it retries through kills
 * and restarts), the admin session of the printed one-time URL, and the suite's size knobs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from '../helpers/agent.js';
import { testPrincipal } from '../helpers/certificates.js';
import { selloJson, startServe, type ServeProcess } from '../helpers/cli.js';

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

// ── size knobs ───────────────────────────────────────────────────────────────

export interface FaultsSettings {
  ci: boolean;
  /** FAULTS_SEED: replays the same kill moments and workload choices. */
  seed: number;
  /** FAULTS_KILLS: kills of the campaign; never fewer than 20 (issue 8). */
  kills: number;
  /** Documents (2 events each), signing requests and dropped files of the kill campaign, at most. */
  documents: number;
  requests: number;
  files: number;
  /** Signatures per signing request of the campaign. */
  signaturesPerRequest: number;
  /** pdfsig on every signed file, or on a sample (it costs about 30 ms a file). */
  pdfsigAll: boolean;
}

function intEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a whole number, got "${raw}"`);
  return n;
}

export function faultsSettings(): FaultsSettings {
  const ci = process.env.CI === 'true' || process.env.CI === '1';
  const seed = intEnv('FAULTS_SEED', Math.floor(Math.random() * 2 ** 31));
  const kills = Math.max(20, intEnv('FAULTS_KILLS', ci ? 20 : 40));
  return ci
    ? { ci, seed, kills, documents: 120, requests: 40, files: 60, signaturesPerRequest: 5, pdfsigAll: false }
    : { ci, seed, kills, documents: 300, requests: 100, files: 150, signaturesPerRequest: 6, pdfsigAll: true };
}

/** mulberry32: a small seeded generator, so a failing run can be replayed with FAULTS_SEED. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ── the process under test ───────────────────────────────────────────────────

/**
 * `sello serve` on one data folder, across kills and restarts. `epoch` counts the processes:
 * a webhook received while epoch N runs came from process N (the dead one cannot send).
 */
export class SelloUnderTest {
  serve: ServeProcess | undefined;
  epoch = 0;
  starts = 0;
  kills = 0;
  /** Every process's stderr, for failure messages. */
  private logs: string[] = [];
  private up: Promise<void>;
  private markUp!: () => void;

  constructor(
    readonly dataDir: string,
    readonly env: Record<string, string>,
  ) {
    this.up = new Promise((resolve) => (this.markUp = resolve));
  }

  get baseUrl(): string {
    if (!this.serve) throw new Error('sello serve is not running');
    return this.serve.baseUrl;
  }

  get adminUrl(): string {
    if (!this.serve) throw new Error('sello serve is not running');
    return this.serve.adminUrl;
  }

  get running(): boolean {
    return this.serve !== undefined;
  }

  /** Resolves once a process accepts requests (at once when one does). */
  whenUp(): Promise<void> {
    return this.up;
  }

  async start(extraEnv: Record<string, string> = {}): Promise<void> {
    if (this.serve) throw new Error('already running');
    const serve = await startServe(this.dataDir, { ...this.env, ...extraEnv });
    this.starts++;
    this.serve = serve;
    this.markUp();
  }

  private down(): void {
    if (this.serve) this.logs.push(this.serve.stderr());
    this.serve = undefined;
    this.up = new Promise((resolve) => (this.markUp = resolve));
  }

  /** `kill -9`, then waits until the process is gone; the next start is a new epoch. */
  async kill9(): Promise<void> {
    const serve = this.serve;
    if (!serve) throw new Error('not running');
    this.down();
    serve.child.kill('SIGKILL');
    await serve.exited;
    this.kills++;
    this.epoch++;
  }

  /** SIGTERM: the graceful stop of CONTRACT §1 (drains deliveries, exits 0). Returns the exit code. */
  async stop(): Promise<number | null> {
    const serve = this.serve;
    if (!serve) return 0;
    this.down();
    serve.child.kill('SIGTERM');
    const code = await serve.exited;
    this.epoch++;
    return code;
  }

  /** Last resort in afterAll. */
  forceKill(): void {
    if (this.serve && this.serve.child.exitCode === null && this.serve.child.signalCode === null) this.serve.child.kill('SIGKILL');
    this.down();
  }

  stderr(): string {
    return [...this.logs, this.serve?.stderr() ?? ''].join('\n').slice(-6000);
  }
}

// ── an office set up through the CLI, as a person would ──────────────────────

export interface Office {
  dataDir: string;
  /** Family B live key of book `oficina` (documents and webhook endpoints). */
  bookKey: string;
  /** Family A test key (signing requests with the test certificate). */
  apiKey: string;
  /** A test certificate (`sello certs issue-test`). */
  certificateId: string;
}

/** `work`: a folder of the scenario for the test principal's file (`--principal`). */
export function setUpOffice(dataDir: string, work: string): Office {
  fs.mkdirSync(dataDir, { recursive: true });
  const principalFile = path.join(work, 'titular.json');
  fs.writeFileSync(principalFile, JSON.stringify(testPrincipal));
  const dd = ['--data-dir', dataDir];
  selloJson(['books', 'create', 'oficina', '--tenant', 'contadores', ...dd]);
  const bookKey = selloJson<{ key: string }>(['keys', 'create', '--family', 'b', '--env', 'live', '--book', 'oficina', ...dd]).key;
  const apiKey = selloJson<{ key: string }>(['keys', 'create', '--family', 'a', '--env', 'test', ...dd]).key;
  const certificateId = selloJson<{ id: string }>(['certs', 'issue-test', '--type', 'ec/individual', '--validity', '365', '--principal', principalFile, ...dd]).id;
  return { dataDir, bookKey, apiKey, certificateId };
}

/** `sello folders add` (CONTRACT §13): the folder with its `firmados/`, `originales/`, `errores/`. */
export function addWatchedFolder(dataDir: string, folder: string, certificateId: string): { id: string; path: string; output: string; originals: string; errors: string } {
  fs.mkdirSync(folder, { recursive: true });
  const added = selloJson<{ id: string; output_folder: string; originals_folder: string; error_folder: string }>([
    'folders', 'add', folder, '--cert', certificateId, '--data-dir', dataDir,
  ]);
  return { id: added.id, path: folder, output: added.output_folder, originals: added.originals_folder, errors: added.error_folder };
}

export { tempDir };

// ── HTTP as an ERP does it ───────────────────────────────────────────────────

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined. */
  json: unknown;
  ms: number;
}

export interface CallOptions {
  headers?: Record<string, string>;
  body?: unknown;
  /** A hang is a failure of the test: no answer within this long. */
  timeoutMs?: number;
}

/** One request to the running process; throws on a network error or a hang. */
export async function call(sello: SelloUnderTest, method: string, path: string, o: CallOptions = {}): Promise<Answer> {
  const started = Date.now();
  const res = await fetch(`${sello.baseUrl}${path}`, {
    method,
    headers: { ...(o.body !== undefined ? { 'Content-Type': 'application/json' } : {}), ...o.headers },
    body: o.body === undefined ? undefined : typeof o.body === 'string' ? o.body : JSON.stringify(o.body),
    signal: AbortSignal.timeout(o.timeoutMs ?? 60_000),
  });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json, ms: Date.now() - started };
}

/** Answers worth another try later: the store was busy or full, the first attempt still running. */
export function transient(a: Answer): boolean {
  if (a.status >= 500 || a.status === 429) return true;
  const code = (a.json as { error?: { code?: string } } | undefined)?.error?.code ?? (a.json as { type?: string; message?: string } | undefined)?.message;
  return a.status === 409 && (code === 'in_progress' || /en curso/.test(String(code)));
}

export class GaveUp extends Error {
  override name = 'GaveUp';
}

/**
 * An ERP's retry loop: through kills (connection refused or reset), restarts (a new port),
 * 5xx and 409 `in_progress`, until an answer that is not transient or the deadline.
 * `onTransient` sees each transient answer (the scenarios check their envelopes).
 */
export async function persist(
  sello: SelloUnderTest,
  method: string,
  path: string,
  o: CallOptions & { deadline: number; onTransient?: (a: Answer) => void; pauseMs?: number },
): Promise<Answer> {
  let last = '';
  // The same non-final answer from running processes, again and again, is a stuck key or a
  // broken record, not a passing fault: give up early with it rather than at the deadline.
  let answersInARow = 0;
  for (;;) {
    if (Date.now() > o.deadline) throw new GaveUp(`${method} ${path}: no final answer before the deadline; last: ${last}`);
    await Promise.race([sello.whenUp(), sleep(1000)]);
    if (!sello.running) continue;
    try {
      const a = await call(sello, method, path, o);
      if (!transient(a)) return a;
      last = `${a.status} ${a.text.slice(0, 200)}`;
      o.onTransient?.(a);
      if (++answersInARow >= 100) throw new GaveUp(`${method} ${path}: ${answersInARow} answers in a row that are not final; last: ${last}`);
    } catch (err) {
      if (err instanceof GaveUp) throw err;
      last = String((err as Error).cause ?? err);
    }
    await sleep(o.pauseMs ?? 100);
  }
}

// ── the admin API of the printed one-time URL (CONTRACT §14) ─────────────────

export interface AdminSession {
  headers(method?: string): Record<string, string>;
}

/** Trades the one-time URL for a session cookie and its CSRF token, as the browser does. */
export async function adminSession(sello: SelloUnderTest): Promise<AdminSession> {
  const login = await fetch(sello.adminUrl, { redirect: 'manual' });
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
  if (!cookie) throw new Error(`admin login gave no cookie (${login.status})`);
  const session = (await (await fetch(`${sello.baseUrl}/admin/api/session`, { headers: { Cookie: cookie } })).json()) as { data: { csrf_token: string } };
  const csrf = session.data.csrf_token;
  return {
    headers: (method = 'GET') => ({ Cookie: cookie, ...(method === 'GET' ? {} : { 'X-CSRF-Token': csrf, 'Content-Type': 'application/json' }) }),
  };
}

/** Polls `read` until `done`, or throws with what it last saw. */
export async function waitUntil<T>(read: () => T | Promise<T>, done: (v: T) => boolean, timeoutMs: number, what: string, pollMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await read();
    if (done(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: not reached in ${Math.round(timeoutMs / 1000)} s; last: ${JSON.stringify(v).slice(0, 600)}`);
    await sleep(pollMs);
  }
}
