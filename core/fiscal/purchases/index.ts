/**
 * Received purchases (CONTRACT §15 `POST /api/v1/purchases`): a factura another taxpayer issued
 * to a book's issuer, recorded in the book once Sello has checked it —
 * - by access key: Sello asks the authorization service of the key's own ambiente (anybody may
 *   ask about any document) and reads the authorized comprobante it returns;
 * - by XML (a file received by e-mail): the signed factura, or its `autorizacion`.
 * Either way the comprobante's XAdES-BES signature must verify (read on the SRI client's answer
 * thread: the text comes from outside), it must be a factura addressed to the issuer's RUC, and
 * of the calling key's environment. The same purchase sent again is the one already recorded.
 *
 * @example
 *   const purchases = createPurchases({ store, sri, urls: config });
 *   const { created, purchase } = await purchases.record(caller, { access_key: '…49 digits…' });
 */
import crypto from 'node:crypto';
import type { Store } from '../../db/index.js';
import type { PurchasesTable } from '../../db/schema.js';
import { accessKeyCheckDigit } from '../../documents/access-key.js';
import type { BookCaller } from '../../documents/index.js';
import { SelloError } from '../../errors/index.js';
import { readIssuer } from '../issuer-store.js';
import { errorFields, formatSriMessages, isSriError, sriBaseUrl, type PurchaseBody, type SriClient } from '../sri/index.js';
import type { PurchaseReading, ReceivedPurchase } from '../sri/purchase-model.js';
import { isoAuthorizationDate } from '../sri/purchase-wrapper.js';
import { purchaseJson, type PurchaseRow } from './view.js';

export { purchaseJson, type PurchaseJson, type PurchaseRow } from './view.js';

export interface PurchasesDeps {
  store: Store;
  sri: Pick<SriClient, 'autorizacionComprobante' | 'readPurchase'>;
  urls: { sriTestUrl: string; sriProductionUrl: string };
  now?: () => Date;
}

export interface Purchases {
  /** Records the purchase `body` names; `created` is false when the book already had it. Throws SelloError 422/503. */
  record(caller: BookCaller, body: PurchaseBody): Promise<{ created: boolean; purchase: ReturnType<typeof purchaseJson> }>;
  /** A purchase of the caller's book and environment; 404 otherwise. */
  get(caller: BookCaller, id: string): ReturnType<typeof purchaseJson>;
}

const KEY_FIELD = 'access_key';

function refuse(field: string, message: string): SelloError {
  return new SelloError('validation_failed', { fields: errorFields([{ path: field, message }]) });
}

/** Every column of `purchases` but the signed XML. */
export const PURCHASE_COLUMNS = [
  'id', 'book_id', 'environment', 'access_key', 'source', 'numero', 'issue_date', 'supplier_ruc', 'supplier_name', 'currency',
  'subtotal', 'grand_total', 'facts', 'signer_name', 'authorization_number', 'authorization_date', 'created_at',
] as const satisfies ReadonlyArray<keyof PurchaseRow>;

/** The stored row of a purchase of the caller's book and environment (without its XML). */
export function findPurchaseRow(store: Store, caller: BookCaller, by: { id: string } | { accessKey: string }): PurchaseRow | undefined {
  const query = store.db.selectFrom('purchases').select(PURCHASE_COLUMNS).where('book_id', '=', caller.book.id).where('environment', '=', caller.environment);
  return store.first('id' in by ? query.where('id', '=', by.id) : query.where('access_key', '=', by.accessKey));
}

/** Why a 49-digit key cannot be a purchase of the caller's environment (before asking anybody). */
function keyProblem(key: string, caller: BookCaller): string | undefined {
  if (accessKeyCheckDigit(key.slice(0, 48)) !== Number(key[48])) return 'el dígito verificador (el último, módulo 11) no corresponde: revise la clave de acceso';
  const codDoc = key.slice(8, 10);
  if (codDoc !== '01') return `es de un comprobante de tipo ${codDoc}; Sello registra como compras las facturas (tipo 01)`;
  const ambiente = caller.environment === 'live' ? '2' : '1';
  if (key[23] !== ambiente) {
    return caller.environment === 'live'
      ? 'es de un comprobante del ambiente de pruebas del SRI; con una clave de producción se registran compras de producción'
      : 'es de un comprobante de producción; con una clave de pruebas se registran compras del ambiente de pruebas del SRI';
  }
  return undefined;
}

export function createPurchases(deps: PurchasesDeps): Purchases {
  const { store } = deps;

  /** The authorized comprobante of `key`, read; a refusal names `access_key`. */
  async function fetchByKey(caller: BookCaller, key: string): Promise<Extract<PurchaseReading, { kind: 'purchase' }>> {
    const ambiente = caller.environment === 'live' ? 2 : 1;
    let answer;
    try {
      answer = await deps.sri.autorizacionComprobante(sriBaseUrl(deps.urls, ambiente), key);
    } catch (err) {
      if (!isSriError(err)) throw err;
      throw new SelloError('sri_unavailable', { detail: `No se pudo consultar la clave de acceso al SRI: ${err.message} Vuelva a intentarlo en unos minutos.`, detailEn: `The SRI could not be asked about the access key: ${err.message}` });
    }
    const authorized = answer.autorizaciones.find((a) => a.estado === 'AUTORIZADO');
    if (!authorized) {
      const last = answer.autorizaciones.at(-1);
      if (!last) throw refuse(KEY_FIELD, 'el SRI no conoce un comprobante con esta clave de acceso (no está autorizado, o todavía no se envió)');
      if (last.estado === 'EN PROCESO') throw refuse(KEY_FIELD, 'el SRI todavía procesa este comprobante; vuelva a intentarlo en unos minutos');
      const why = last.mensajes.length > 0 ? `: ${formatSriMessages(last.mensajes)}` : '';
      throw refuse(KEY_FIELD, `el SRI no autorizó este comprobante (NO AUTORIZADO)${why}`);
    }
    if (!authorized.comprobante) throw refuse(KEY_FIELD, 'el SRI respondió AUTORIZADO pero sin el comprobante; vuelva a intentarlo más tarde');
    const reading = await deps.sri.readPurchase(authorized.comprobante);
    if (reading.kind === 'refused') throw refuse(KEY_FIELD, `el comprobante que devolvió el SRI no se puede registrar: ${reading.reason}`);
    if (reading.purchase.accessKey !== key) throw refuse(KEY_FIELD, `el SRI devolvió otro comprobante (clave ${reading.purchase.accessKey}) para esta clave`);
    const date = authorized.fechaAutorizacion && isoAuthorizationDate(authorized.fechaAutorizacion);
    return { ...reading, authorization: { number: authorized.numeroAutorizacion ?? key, date: date ?? '' } };
  }

  /** What every purchase must be, whatever brought it: the caller's environment, addressed to its issuer. */
  function checkAddressee(purchase: ReceivedPurchase, caller: BookCaller, issuerRuc: string, field: string): void {
    const ambiente = caller.environment === 'live' ? 2 : 1;
    if (purchase.ambiente !== ambiente) {
      throw refuse(field, purchase.ambiente === 1 ? 'es un comprobante del ambiente de pruebas del SRI; con una clave de producción se registran compras de producción' : 'es un comprobante de producción; con una clave de pruebas se registran compras del ambiente de pruebas del SRI');
    }
    const buyer = purchase.buyer.taxId;
    // A person's RUC is their cédula and 001: a supplier may have named either.
    const samePerson = buyer === issuerRuc || (buyer.length === 10 && issuerRuc === `${buyer}001` && Number(issuerRuc[2]) < 6);
    if (!samePerson) {
      throw refuse(field, `la factura ${purchase.numero} de ${purchase.supplier.name} está emitida a ${buyer} (${purchase.buyer.name}), no al RUC del emisor de este libro (${issuerRuc})`);
    }
  }

  function insert(caller: BookCaller, reading: Extract<PurchaseReading, { kind: 'purchase' }>, source: 'sri' | 'xml'): { created: boolean; row: PurchaseRow } {
    const p = reading.purchase;
    return store.transaction(() => {
      const existing = findPurchaseRow(store, caller, { accessKey: p.accessKey });
      if (existing) return { created: false, row: existing };
      const row: PurchasesTable = {
        id: crypto.randomUUID(),
        book_id: caller.book.id,
        environment: caller.environment,
        access_key: p.accessKey,
        source,
        numero: p.numero,
        issue_date: p.issueDate,
        supplier_ruc: p.supplier.ruc,
        supplier_name: p.supplier.name,
        // The XML's moneda is a word ("DOLAR"); the API speaks ISO 4217, as every other document.
        currency: p.currency.toUpperCase() === 'DOLAR' ? 'USD' : p.currency,
        subtotal: p.totalWithoutTaxes,
        grand_total: p.grandTotal,
        facts: JSON.stringify(p),
        xml: reading.comprobante,
        signer_name: reading.signerName,
        authorization_number: reading.authorization?.number ?? null,
        authorization_date: reading.authorization?.date || null,
        created_at: (deps.now?.() ?? new Date()).toISOString(),
      };
      store.run(store.db.insertInto('purchases').values(row));
      return { created: true, row };
    });
  }

  return {
    async record(caller, body) {
      const stored = readIssuer(store, caller.book.id, caller.environment);
      if (!stored) {
        throw new SelloError('book_not_configured', {
          detail: `Este libro no tiene emisor configurado en el ambiente de ${caller.environment === 'live' ? 'producción' : 'pruebas'}: Sello no sabe a qué RUC van dirigidas sus compras. Configúrelo con PUT /api/v1/issuer o en la pantalla Emisor.`,
        });
      }
      let reading: Extract<PurchaseReading, { kind: 'purchase' }>;
      let field: string;
      if (body.access_key !== undefined) {
        field = KEY_FIELD;
        const problem = keyProblem(body.access_key, caller);
        if (problem) throw refuse(field, problem);
        const known = findPurchaseRow(store, caller, { accessKey: body.access_key });
        if (known) return { created: false, purchase: purchaseJson(known) };
        reading = await fetchByKey(caller, body.access_key);
      } else {
        field = 'xml';
        const read = await deps.sri.readPurchase(body.xml!);
        if (read.kind === 'refused') throw refuse(field, read.reason);
        reading = read;
      }
      checkAddressee(reading.purchase, caller, stored.issuer.ruc, field);
      const { created, row } = await store.batch(() => insert(caller, reading, field === KEY_FIELD ? 'sri' : 'xml'));
      return { created, purchase: purchaseJson(row) };
    },
    get(caller, id) {
      const row = findPurchaseRow(store, caller, { id });
      if (!row) throw new SelloError('not_found', { detail: `La compra ${id} no existe en este libro y ambiente.` });
      return purchaseJson(row);
    },
  };
}
