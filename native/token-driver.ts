/**
 * PKCS#11 through pkcs11js: the one file of Sello that calls into a token's driver.
 *
 * Rules it enforces (ENGINEERING.md, "Tokens"; CONTRACT §11):
 * - one operation at a time per token: every call on a slot goes through that slot's queue;
 * - a PIN is tried exactly once per call to `login` (one C_Login); nothing here retries it;
 * - signatures run on pkcs11js's worker thread (the callback form of C_Sign), so a slow
 *   smart card (50–200 ms per RSA-2048 signature) never blocks the event loop;
 * - keys with CKA_ALWAYS_AUTHENTICATE get a context-specific login before each signature
 *   (PKCS#11 v2.40 §5.6, C_Login with CKU_CONTEXT_SPECIFIC);
 * - a token pulled out mid-operation surfaces as `token_removed`, before a session as
 *   `token_not_present`.
 *
 * pkcs11js can `load` only one library per PKCS11 instance, and C_Initialize may be called
 * only once per process per library; a registry shares one instance per module path.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import pkcs11js from 'pkcs11js';
import { SelloError } from '../core/errors/index.js';
import { CKR, ckrOf, isRemovalCode, toSelloError } from './pkcs11-errors.js';

/** Token flags worth showing to the person holding the token (PKCS#11 v2.40 §3.2, CK_TOKEN_INFO). */
export interface TokenFlags {
  loginRequired: boolean;
  userPinInitialized: boolean;
  /** PIN entered on the reader's own keypad. */
  protectedAuthenticationPath: boolean;
  tokenInitialized: boolean;
  /** At least one wrong PIN since the last good one. */
  userPinCountLow: boolean;
  /** The next wrong PIN locks the token. */
  userPinFinalTry: boolean;
  userPinLocked: boolean;
  userPinToBeChanged: boolean;
}

/** What the UI can say about the PIN tries left, from the flags above. */
export type PinTries = 'ok' | 'low' | 'final_try' | 'locked';

export interface TokenEntry {
  label: string;
  manufacturer: string;
  model: string;
  serialNumber: string;
  flags: TokenFlags;
  pinTries: PinTries;
}

export interface SlotEntry {
  /** The CK_SLOT_ID as a decimal string (stable while the module is loaded). */
  slotId: string;
  description: string;
  manufacturer: string;
  removable: boolean;
  hardware: boolean;
  tokenPresent: boolean;
  token?: TokenEntry;
}

export interface TokenCertificate {
  slotId: string;
  /** CKA_ID, which pairs the certificate with its private key. */
  id: Buffer;
  label: string;
  /** DER. */
  certificate: Buffer;
  /**
   * The matching private key, or null when none is visible: private keys are usually
   * CKA_PRIVATE objects, which only show after `login`.
   */
  privateKey: { keyType: 'rsa' | 'ec' | 'other'; alwaysAuthenticate: boolean } | null;
}

export interface ModuleInfo {
  path: string;
  manufacturer: string;
  description: string;
  cryptokiVersion: string;
  libraryVersion: string;
}

export interface SignOptions {
  /**
   * Asked for the PIN of a context-specific login when the key has CKA_ALWAYS_AUTHENTICATE.
   * Called at most once per signature; a wrong answer is not retried.
   */
  contextPin?: () => Promise<string>;
  /**
   * The digest signed: SHA-256 (default) or SHA-1, which only the XAdES-BES of Ecuador's SRI
   * needs (rsa-sha1).
   */
  hash?: 'sha256' | 'sha1';
}

/**
 * The slice of PKCS#11 that Sello needs (STYLE "For Sello" §2: own the slice you depend on).
 * Every method may throw a SelloError: token_not_present, token_removed, pin_required,
 * pin_incorrect, pin_locked, pkcs11_error.
 */
export interface TokenDriver {
  readonly modulePath: string;
  info(): ModuleInfo;
  listSlots(): Promise<SlotEntry[]>;
  /** Certificates on the token in `slotId` (no login needed; key details need one). */
  listCertificates(slotId: string): Promise<TokenCertificate[]>;
  /** One C_Login with the user PIN. Never retried here. */
  login(slotId: string, pin: string): Promise<void>;
  isLoggedIn(slotId: string): boolean;
  logout(slotId: string): Promise<void>;
  /**
   * Signs SHA-256(`data`) (or SHA-1 with `opts.hash`) with the private key whose CKA_ID is
   * `keyId`: RSA PKCS#1 v1.5 (CKM_SHA256_RSA_PKCS / CKM_SHA1_RSA_PKCS, or CKM_RSA_PKCS over a
   * DigestInfo) or ECDSA (DER-encoded).
   */
  sign(slotId: string, keyId: Buffer, data: Buffer, opts?: SignOptions): Promise<Buffer>;
  /** Logs out, closes sessions and, when this was the last user of the module, finalizes it. */
  close(): Promise<void>;
}

type Pkcs11 = pkcs11js.PKCS11;
type Handle = Buffer;

/**
 * One per loaded module and process. Sessions, login state and the per-slot queues live here,
 * not in each driver: PKCS#11 login state is per application and token, and "one operation
 * at a time per token" must hold across every driver of the process.
 */
interface SharedModule {
  mod: Pkcs11;
  refs: number;
  initializedHere: boolean;
  info: ModuleInfo;
  slots: Map<string, SlotState>;
  handles: Map<string, Handle>;
}

const registry = new Map<string, SharedModule>();

/**
 * Loads a PKCS#11 module (or shares the already loaded one) and returns a driver for it.
 *
 * @example
 *   const driver = loadTokenDriver('/usr/lib/libeTPkcs11.so');
 *   const [slot] = (await driver.listSlots()).filter((s) => s.tokenPresent);
 *   await driver.login(slot.slotId, pin);
 *   const sig = await driver.sign(slot.slotId, keyId, signedAttributesDer);
 */
export function loadTokenDriver(modulePath: string, options: TokenDriverOptions = {}): TokenDriver {
  const resolved = path.resolve(modulePath);
  let shared = registry.get(resolved);
  if (!shared) {
    shared = openModule(resolved);
    registry.set(resolved, shared);
  }
  shared.refs++;
  return new Pkcs11TokenDriver(resolved, shared, options);
}

export interface TokenDriverOptions {
  /**
   * Sign RSA with CKM_RSA_PKCS over a DigestInfo even when the token lists
   * CKM_SHA256_RSA_PKCS: a workaround for drivers that list the combined mechanism but
   * implement it badly. Off by default.
   */
  rawRsaOnly?: boolean;
}

function openModule(modulePath: string): SharedModule {
  if (!existsSync(modulePath)) {
    throw new SelloError('pkcs11_module_not_found', {
      detail: `No existe el controlador PKCS#11 ${modulePath}. Instale el controlador del token o corrija la ruta en la configuración.`,
      meta: { module: modulePath },
    });
  }
  const mod = new pkcs11js.PKCS11();
  try {
    mod.load(modulePath);
  } catch (err) {
    throw new SelloError('pkcs11_module_not_found', {
      detail: `No se pudo cargar ${modulePath} como controlador PKCS#11 (${(err as Error).message}). Revise que sea el controlador de 64 bits del token.`,
      meta: { module: modulePath },
      cause: err,
    });
  }
  let initializedHere = true;
  try {
    // OS locking: signatures run on pkcs11js's worker thread while the main thread may list slots.
    try {
      mod.C_Initialize({ flags: pkcs11js.CKF_OS_LOCKING_OK });
    } catch (err) {
      // A module that cannot use OS locks (CKR_CANT_LOCK) still works single-threaded; the
      // per-slot queue keeps our own calls apart.
      if (ckrOf(err) !== CKR.CANT_LOCK) throw err;
      mod.C_Initialize();
    }
  } catch (err) {
    if (ckrOf(err) !== CKR.CRYPTOKI_ALREADY_INITIALIZED) {
      safely(() => mod.close());
      throw toSelloError(err, 'open', { module: modulePath });
    }
    initializedHere = false; // someone else in this process owns C_Initialize/C_Finalize
  }
  const raw = mod.C_GetInfo();
  const info: ModuleInfo = {
    path: modulePath,
    manufacturer: raw.manufacturerID.trim(),
    description: raw.libraryDescription.trim(),
    cryptokiVersion: `${raw.cryptokiVersion.major}.${raw.cryptokiVersion.minor}`,
    libraryVersion: `${raw.libraryVersion.major}.${raw.libraryVersion.minor}`,
  };
  return { mod, refs: 0, initializedHere, info, slots: new Map(), handles: new Map() };
}

interface SlotState {
  session: Handle | null;
  loggedIn: boolean;
  queue: Promise<unknown>;
  mechanisms?: Set<number>;
}

const CKF_TOKEN_PRESENT = 0x1;
const CKF_REMOVABLE_DEVICE = 0x2;
const CKF_HW_SLOT = 0x4;
const CKS_RO_USER_FUNCTIONS = 1;
const CKS_RW_USER_FUNCTIONS = 3;
/** DigestInfo prefixes (RFC 8017 §9.2, note 1): what CKM_RSA_PKCS signs before the digest. */
const DIGEST_INFO_PREFIX = {
  sha256: Buffer.from('3031300d060960864801650304020105000420', 'hex'),
  sha1: Buffer.from('3021300906052b0e03021a05000414', 'hex'),
} as const;
const SIGNATURE_BUFFER = 1024; // RSA-8192 or any ECDSA fits

class Pkcs11TokenDriver implements TokenDriver {
  private closed = false;

  constructor(
    readonly modulePath: string,
    private readonly shared: SharedModule,
    private readonly options: TokenDriverOptions,
  ) {}

  private get mod(): Pkcs11 {
    if (this.closed) throw new Error('TokenDriver cerrado');
    return this.shared.mod;
  }

  info(): ModuleInfo {
    return { ...this.shared.info };
  }

  async listSlots(): Promise<SlotEntry[]> {
    const mod = this.mod;
    let list: Handle[];
    try {
      list = mod.C_GetSlotList(false);
    } catch (err) {
      throw toSelloError(err, 'open');
    }
    const out: SlotEntry[] = [];
    for (const handle of list) {
      const slotId = slotIdOf(handle);
      this.handles.set(slotId, handle);
      let slotInfo: pkcs11js.SlotInfo;
      try {
        slotInfo = mod.C_GetSlotInfo(handle);
      } catch {
        continue; // slot vanished between the two calls (a reader unplugged)
      }
      const entry: SlotEntry = {
        slotId,
        description: slotInfo.slotDescription.trim(),
        manufacturer: slotInfo.manufacturerID.trim(),
        removable: (slotInfo.flags & CKF_REMOVABLE_DEVICE) !== 0,
        hardware: (slotInfo.flags & CKF_HW_SLOT) !== 0,
        tokenPresent: (slotInfo.flags & CKF_TOKEN_PRESENT) !== 0,
      };
      if (entry.tokenPresent) {
        try {
          entry.token = toTokenEntry(mod.C_GetTokenInfo(handle));
        } catch {
          entry.tokenPresent = false;
        }
      }
      if (!entry.tokenPresent) this.forget(slotId);
      out.push(entry);
    }
    return out;
  }

  async listCertificates(slotId: string): Promise<TokenCertificate[]> {
    return this.exclusive(slotId, () => {
      const state = this.state(slotId);
      this.handle(slotId);
      if (!this.tokenPresent(slotId)) {
        this.forget(slotId);
        throw new SelloError('token_not_present', { detail: 'El token no está conectado. Conéctelo y vuelva a intentarlo.', meta: { slot: slotId } });
      }
      const temporary = state.session === null;
      const session = state.session ?? this.openSession(slotId);
      try {
        const certs = this.findObjects(session, [
          { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_CERTIFICATE },
          { type: pkcs11js.CKA_CERTIFICATE_TYPE, value: pkcs11js.CKC_X_509 },
        ]);
        const out: TokenCertificate[] = [];
        for (const obj of certs) {
          const value = this.attr(session, obj, pkcs11js.CKA_VALUE);
          if (!value || value.length === 0) continue;
          const id = this.attr(session, obj, pkcs11js.CKA_ID) ?? Buffer.alloc(0);
          const label = (this.attr(session, obj, pkcs11js.CKA_LABEL) ?? Buffer.alloc(0)).toString('utf8');
          out.push({ slotId, id, label, certificate: value, privateKey: this.describeKey(session, id) });
        }
        return out;
      } catch (err) {
        throw this.fail(slotId, err, temporary ? 'open' : 'operation');
      } finally {
        if (temporary) safely(() => this.mod.C_CloseSession(session));
      }
    });
  }

  isLoggedIn(slotId: string): boolean {
    return this.slots.get(slotId)?.loggedIn ?? false;
  }

  async login(slotId: string, pin: string): Promise<void> {
    return this.exclusive(slotId, () => {
      const state = this.state(slotId);
      if (state.loggedIn && state.session && this.sessionIsUser(state.session)) return;
      const handle = this.handle(slotId);
      if (!this.tokenPresent(slotId)) {
        this.forget(slotId);
        throw new SelloError('token_not_present', { detail: 'El token no está conectado. Conéctelo y vuelva a intentarlo.', meta: { slot: slotId } });
      }
      // Don't spend a try on a token that is already locked.
      const before = this.tokenFlags(handle);
      if (before?.userPinLocked) {
        throw new SelloError('pin_locked', {
          detail: 'El PIN del token está bloqueado. Desbloquéelo con la herramienta del fabricante (PIN de administrador/PUK).',
          meta: { pin_tries: 'locked' },
        });
      }
      const session = state.session ?? this.openSession(slotId);
      state.session = session;
      try {
        this.mod.C_Login(session, pkcs11js.CKU_USER, pin); // exactly once: a wrong PIN is never retried
      } catch (err) {
        if (ckrOf(err) === CKR.USER_ALREADY_LOGGED_IN) {
          state.loggedIn = true;
          return;
        }
        const after = this.tokenFlags(handle);
        throw this.fail(slotId, err, 'operation', after ? { pin_tries: pinTriesOf(after) } : {});
      }
      state.loggedIn = true;
    });
  }

  async logout(slotId: string): Promise<void> {
    return this.exclusive(slotId, () => {
      const state = this.state(slotId);
      if (state.session) {
        if (state.loggedIn) safely(() => this.mod.C_Logout(state.session as Handle));
        safely(() => this.mod.C_CloseSession(state.session as Handle));
      }
      state.session = null;
      state.loggedIn = false;
    });
  }

  async sign(slotId: string, keyId: Buffer, data: Buffer, opts: SignOptions = {}): Promise<Buffer> {
    return this.exclusive(slotId, async () => {
      const state = this.state(slotId);
      const session = state.session;
      if (!session || !state.loggedIn) {
        throw new SelloError('pin_required', { detail: 'Ingrese el PIN del token antes de firmar.' });
      }
      try {
        const key = this.findPrivateKey(session, keyId);
        if (!key) {
          // SoftHSM and some drivers just stop finding objects once the token is gone.
          if (!this.tokenPresent(slotId)) throw removed(slotId);
          throw new SelloError('pkcs11_error', {
            detail: 'El token no tiene la clave privada del certificado elegido. Revise que esté conectado el token correcto.',
            meta: { key_id: keyId.toString('hex') },
          });
        }
        const keyType = this.keyTypeOf(session, key);
        const alwaysAuthenticate = this.boolAttr(session, key, pkcs11js.CKA_ALWAYS_AUTHENTICATE);
        // Ask for the PIN before C_SignInit: an operation left active would block the session.
        const contextPin = alwaysAuthenticate ? await this.askContextPin(opts) : undefined;

        const hash = opts.hash ?? 'sha256';
        if (keyType === 'ec') {
          const raw = await this.signWith(session, key, { mechanism: pkcs11js.CKM_ECDSA }, digestOf(hash, data), contextPin);
          return ecdsaRawToDer(raw);
        }
        if (keyType !== 'rsa') {
          throw new SelloError('pkcs11_error', { detail: 'La clave del token no es RSA ni EC; Sello no puede firmar con ella.' });
        }
        const mechanisms = this.mechanismsOf(slotId, state);
        const hashing = hash === 'sha1' ? pkcs11js.CKM_SHA1_RSA_PKCS : pkcs11js.CKM_SHA256_RSA_PKCS;
        if (!this.options.rawRsaOnly && mechanisms.has(hashing)) {
          try {
            return await this.signWith(session, key, { mechanism: hashing }, data, contextPin);
          } catch (err) {
            if (ckrOf(err) !== CKR.MECHANISM_INVALID) throw err;
            // Listed but refused (seen on some drivers): fall back below.
          }
        }
        // Every token does raw PKCS#1 v1.5 over a DigestInfo (RFC 8017 §9.2).
        const digestInfo = Buffer.concat([DIGEST_INFO_PREFIX[hash], digestOf(hash, data)]);
        return await this.signWith(session, key, { mechanism: pkcs11js.CKM_RSA_PKCS }, digestInfo, contextPin);
      } catch (err) {
        throw this.fail(slotId, err, 'operation');
      }
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.shared.refs--;
    if (this.shared.refs > 0) return; // other drivers still use the module, its sessions and login
    registry.delete(this.modulePath);
    for (const [slotId, state] of this.shared.slots) {
      await state.queue.catch(() => undefined);
      if (state.session) {
        if (state.loggedIn) safely(() => this.shared.mod.C_Logout(state.session as Handle));
        safely(() => this.shared.mod.C_CloseSession(state.session as Handle));
      }
      this.shared.slots.delete(slotId);
    }
    if (this.shared.initializedHere) safely(() => this.shared.mod.C_Finalize());
    safely(() => this.shared.mod.close());
  }

  private get slots(): Map<string, SlotState> {
    return this.shared.slots;
  }

  private get handles(): Map<string, Handle> {
    return this.shared.handles;
  }

  // ── internals ────────────────────────────────────────────────────────────

  /** Runs `fn` after every earlier operation on the same slot (an async mutex per token). */
  private exclusive<T>(slotId: string, fn: () => T | Promise<T>): Promise<T> {
    const state = this.state(slotId);
    const run = state.queue.then(fn, fn);
    state.queue = run.catch(() => undefined);
    return run;
  }

  private state(slotId: string): SlotState {
    let s = this.slots.get(slotId);
    if (!s) {
      s = { session: null, loggedIn: false, queue: Promise.resolve() };
      this.slots.set(slotId, s);
    }
    return s;
  }

  /** Drops what we know about a slot whose token went away; its sessions are gone too. */
  private forget(slotId: string): void {
    const s = this.slots.get(slotId);
    if (!s) return;
    if (s.session) safely(() => this.shared.mod.C_CloseSession(s.session as Handle));
    s.session = null;
    s.loggedIn = false;
    delete s.mechanisms;
  }

  private fail(slotId: string, err: unknown, phase: 'open' | 'operation', meta: Record<string, unknown> = {}): SelloError {
    if (err instanceof SelloError) {
      if (err.code === 'token_removed' || err.code === 'token_not_present') this.forget(slotId);
      return err;
    }
    const rv = ckrOf(err);
    // Drivers differ in what a vanished token returns (CKR_DEVICE_ERROR, CKR_GENERAL_ERROR,
    // CKR_FUNCTION_FAILED…); whatever it was, if the token is gone that is what to tell.
    if (isRemovalCode(rv) || (phase === 'operation' && !this.tokenPresent(slotId))) {
      this.forget(slotId);
      return isRemovalCode(rv) ? toSelloError(err, phase, { slot: slotId, ...meta }) : removed(slotId, err);
    }
    return toSelloError(err, phase, { slot: slotId, ...meta });
  }

  private tokenPresent(slotId: string): boolean {
    const h = this.handles.get(slotId);
    if (!h) return false;
    try {
      // The slot flag can be stale (SoftHSM keeps it set after its token folder is gone), so
      // C_GetTokenInfo has to answer too: a missing token makes it fail.
      if ((this.shared.mod.C_GetSlotInfo(h).flags & CKF_TOKEN_PRESENT) === 0) return false;
      this.shared.mod.C_GetTokenInfo(h);
      return true;
    } catch {
      return false;
    }
  }

  private handle(slotId: string): Handle {
    let h = this.handles.get(slotId);
    if (!h) {
      try {
        for (const handle of this.mod.C_GetSlotList(false)) this.handles.set(slotIdOf(handle), handle);
      } catch (err) {
        throw toSelloError(err, 'open');
      }
      h = this.handles.get(slotId);
    }
    if (!h) throw new SelloError('token_not_present', { detail: 'El lector o token indicado ya no está conectado. Conéctelo y vuelva a intentarlo.', meta: { slot: slotId } });
    return h;
  }

  private openSession(slotId: string): Handle {
    try {
      return this.mod.C_OpenSession(this.handle(slotId), pkcs11js.CKF_SERIAL_SESSION);
    } catch (err) {
      throw this.fail(slotId, err, 'open');
    }
  }

  private sessionIsUser(session: Handle): boolean {
    try {
      const st = this.mod.C_GetSessionInfo(session).state;
      return st === CKS_RO_USER_FUNCTIONS || st === CKS_RW_USER_FUNCTIONS;
    } catch {
      return false;
    }
  }

  private tokenFlags(handle: Handle): TokenFlags | undefined {
    try {
      return toTokenFlags(this.mod.C_GetTokenInfo(handle).flags);
    } catch {
      return undefined;
    }
  }

  private findObjects(session: Handle, template: pkcs11js.Template): Handle[] {
    const mod = this.mod;
    mod.C_FindObjectsInit(session, template);
    try {
      const out: Handle[] = [];
      for (;;) {
        const batch = mod.C_FindObjects(session, 64);
        if (batch.length === 0) break;
        out.push(...batch);
      }
      return out;
    } finally {
      safely(() => mod.C_FindObjectsFinal(session));
    }
  }

  private findPrivateKey(session: Handle, keyId: Buffer): Handle | undefined {
    return this.findObjects(session, [
      { type: pkcs11js.CKA_CLASS, value: pkcs11js.CKO_PRIVATE_KEY },
      { type: pkcs11js.CKA_ID, value: keyId },
    ])[0];
  }

  private describeKey(session: Handle, keyId: Buffer): TokenCertificate['privateKey'] {
    const key = this.findPrivateKey(session, keyId);
    if (!key) return null;
    return { keyType: this.keyTypeOf(session, key), alwaysAuthenticate: this.boolAttr(session, key, pkcs11js.CKA_ALWAYS_AUTHENTICATE) };
  }

  /** One attribute, or undefined when the token does not have it (CKR_ATTRIBUTE_TYPE_INVALID etc.). */
  private attr(session: Handle, obj: Handle, type: number): Buffer | undefined {
    try {
      const [a] = this.mod.C_GetAttributeValue(session, obj, [{ type }]);
      const v = a?.value;
      return Buffer.isBuffer(v) ? v : undefined;
    } catch (err) {
      if (isRemovalCode(ckrOf(err))) throw err;
      return undefined;
    }
  }

  private boolAttr(session: Handle, obj: Handle, type: number): boolean {
    const v = this.attr(session, obj, type);
    return !!v && v.length > 0 && v[0] !== 0;
  }

  private keyTypeOf(session: Handle, key: Handle): 'rsa' | 'ec' | 'other' {
    const v = this.attr(session, key, pkcs11js.CKA_KEY_TYPE);
    if (!v || v.length === 0) return 'other';
    const n = v.length >= 8 ? Number(v.readBigUInt64LE(0)) : v.readUInt32LE(0);
    return n === pkcs11js.CKK_RSA ? 'rsa' : n === pkcs11js.CKK_EC ? 'ec' : 'other';
  }

  private mechanismsOf(slotId: string, state: SlotState): Set<number> {
    if (!state.mechanisms) {
      try {
        state.mechanisms = new Set(this.mod.C_GetMechanismList(this.handle(slotId)));
      } catch (err) {
        if (isRemovalCode(ckrOf(err))) throw err;
        state.mechanisms = new Set();
      }
    }
    return state.mechanisms;
  }

  private async askContextPin(opts: SignOptions): Promise<string> {
    if (!opts.contextPin) {
      throw new SelloError('pin_required', { detail: 'Esta clave pide el PIN antes de cada firma; ingréselo para continuar.' });
    }
    return opts.contextPin();
  }

  /**
   * C_SignInit, the context-specific login if needed, then C_Sign in its callback form, which
   * pkcs11js runs on a worker thread.
   */
  private async signWith(session: Handle, key: Handle, mechanism: pkcs11js.Mechanism, input: Buffer, contextPin: string | undefined): Promise<Buffer> {
    const mod = this.mod;
    mod.C_SignInit(session, mechanism, key);
    if (contextPin !== undefined) {
      try {
        mod.C_Login(session, pkcs11js.CKU_CONTEXT_SPECIFIC, contextPin);
      } catch (err) {
        // End the pending operation (C_Sign fails without the login and terminates it),
        // so the session stays usable for the next attempt.
        safely(() => mod.C_Sign(session, input, Buffer.alloc(SIGNATURE_BUFFER)));
        throw err;
      }
    }
    return new Promise<Buffer>((resolve, reject) => {
      mod.C_Sign(session, input, Buffer.alloc(SIGNATURE_BUFFER), (error, signature) => {
        if (error) reject(error);
        else resolve(Buffer.from(signature));
      });
    });
  }
}

function removed(slotId: string, cause?: unknown): SelloError {
  return new SelloError('token_removed', {
    detail: 'El token se desconectó durante la operación. Vuelva a conectarlo e intente de nuevo; el documento no se modificó.',
    meta: { slot: slotId },
    ...(cause === undefined ? {} : { cause }),
  });
}

function slotIdOf(handle: Handle): string {
  let n = 0n;
  for (let i = handle.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(handle[i] ?? 0);
  return n.toString();
}

function toTokenFlags(flags: number): TokenFlags {
  const has = (bit: number): boolean => (flags & bit) !== 0;
  return {
    loginRequired: has(pkcs11js.CKF_LOGIN_REQUIRED),
    userPinInitialized: has(pkcs11js.CKF_USER_PIN_INITIALIZED),
    protectedAuthenticationPath: has(pkcs11js.CKF_PROTECTED_AUTHENTICATION_PATH),
    tokenInitialized: has(pkcs11js.CKF_TOKEN_INITIALIZED),
    userPinCountLow: has(pkcs11js.CKF_USER_PIN_COUNT_LOW),
    userPinFinalTry: has(pkcs11js.CKF_USER_PIN_FINAL_TRY),
    userPinLocked: has(pkcs11js.CKF_USER_PIN_LOCKED),
    userPinToBeChanged: has(pkcs11js.CKF_USER_PIN_TO_BE_CHANGED),
  };
}

/**
 * Most tokens report only these three states, not a number of tries left.
 *
 * @example pinTriesOf({ ...flags, userPinFinalTry: true }) // → 'final_try'
 */
export function pinTriesOf(flags: TokenFlags): PinTries {
  if (flags.userPinLocked) return 'locked';
  if (flags.userPinFinalTry) return 'final_try';
  if (flags.userPinCountLow) return 'low';
  return 'ok';
}

function toTokenEntry(info: pkcs11js.TokenInfo): TokenEntry {
  const flags = toTokenFlags(info.flags);
  return {
    label: info.label.trim(),
    manufacturer: info.manufacturerID.trim(),
    model: info.model.trim(),
    serialNumber: info.serialNumber.trim(),
    flags,
    pinTries: pinTriesOf(flags),
  };
}

function digestOf(hash: 'sha256' | 'sha1', data: Buffer): Buffer {
  return createHash(hash).update(data).digest();
}

/** PKCS#11 CKM_ECDSA returns r‖s; CMS wants Ecdsa-Sig-Value ::= SEQUENCE { r INTEGER, s INTEGER } (RFC 5758 §3.2). */
export function ecdsaRawToDer(raw: Buffer): Buffer {
  if (raw.length === 0 || raw.length % 2 !== 0) throw new SelloError('pkcs11_error', { detail: 'El token devolvió una firma ECDSA con un tamaño inválido.' });
  const half = raw.length / 2;
  const integer = (b: Buffer): Buffer => {
    let i = 0;
    while (i < b.length - 1 && b[i] === 0) i++;
    let v = b.subarray(i);
    if ((v[0] ?? 0) & 0x80) v = Buffer.concat([Buffer.from([0]), v]);
    return Buffer.concat([Buffer.from([0x02]), derLength(v.length), v]);
  };
  const body = Buffer.concat([integer(raw.subarray(0, half)), integer(raw.subarray(half))]);
  return Buffer.concat([Buffer.from([0x30]), derLength(body.length), body]);
}

function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  if (n < 0x100) return Buffer.from([0x81, n]);
  return Buffer.from([0x82, n >> 8, n & 0xff]);
}

function safely(fn: () => unknown): void {
  try {
    fn();
  } catch {
    // best effort: cleanup of a session or module that may already be gone
  }
}
