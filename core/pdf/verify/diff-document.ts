/**
 * Rules for the document-level objects a later revision may touch (pyHanko's
 * CatalogModificationRule, DocInfoRule, MetadataUpdateRule, ObjectStreamRule, DSSCompareRule):
 * the trailer, the catalog outside its form, the document information dictionary, the XMP
 * metadata stream, object streams, and the document security store of PAdES long-term
 * validation (ETSI EN 319 142-1 §5.4.2, ISO 32000-2 §12.8.4.3).
 */
import { PdfRef, PdfStream, type PdfObject } from '../syntax/pdf-objects.js';
import { Level, keyPlace, type Place, type Review } from './diff-review.js';
import { differingKeys, sameValue } from './object-graph.js';

/** Catalog keys other rules judge, or that carry no content (pyHanko's ROOT_EXEMPT_STRICT_COMPARISON). */
const CATALOG_EXEMPT = new Set(['AcroForm', 'DSS', 'Extensions', 'Metadata', 'MarkInfo', 'Version']);

/** Same catalog, same encryption; the catalog may change only in the keys other rules judge. */
export function reviewCatalog(r: Review): void {
  const bRoot = r.base.trailer.get('Root');
  const nRoot = r.next.trailer.get('Root');
  if (!(nRoot instanceof PdfRef) || !(bRoot instanceof PdfRef) || nRoot.num !== bRoot.num) r.fail('la revisión posterior cambió el catálogo del documento por otro');
  if (!sameValue(r.base.trailer.get('Encrypt'), r.next.trailer.get('Encrypt'))) r.fail('la revisión posterior cambió el cifrado del documento');
  const b = r.base.catalog().dict;
  const n = r.next.catalog().dict;
  const keys = differingKeys(b, n, CATALOG_EXEMPT);
  if (keys.length) r.fail(`la revisión posterior cambió el catálogo (${keys.map((k) => `/${k}`).join(', ')})`);
  // Checked key by key just above: a blanket approval, as pyHanko gives the root.
  r.approve(nRoot.num, Level.none);
  const root: Place = { from: nRoot.num, path: '' };
  for (const key of ['Extensions', 'MarkInfo', 'Version']) {
    r.approveSlot(b.get(key), n.get(key), Level.none, keyPlace(nRoot, root, key), `/${key}`);
    r.approveCreated(n.get(key), Level.none);
  }
  // §14.3.2: XMP metadata describes the document, it is not shown as its content.
  const meta = n.get('Metadata');
  if (meta !== undefined && !(r.next.resolve(meta) instanceof PdfStream)) r.fail('/Metadata no es un stream');
  r.approveSlot(b.get('Metadata'), meta, Level.none, keyPlace(nRoot, root, 'Metadata'), '/Metadata', true);
}

/** §14.3.3: the document information dictionary may be updated (dates, producer…). */
export function reviewInfo(r: Review): void {
  const nInfo = r.next.trailer.get('Info');
  if (nInfo === undefined) return;
  if (r.next.resolve(nInfo) instanceof PdfStream) r.fail('/Info no es un diccionario');
  r.approveSlot(r.base.trailer.get('Info'), nInfo, Level.none, { from: 'trailer', path: 'Info' }, '/Info');
  r.approveCreated(r.nextDict(nInfo), Level.none);
}

/** §7.5.7: an object stream rewritten as an object stream is a container; its objects are judged one by one. */
export function reviewObjectStreams(r: Review): void {
  for (const num of r.changed) {
    if (r.isCreated(num)) continue;
    const b = r.base.getObject(num);
    const n = r.next.getObject(num);
    if (b instanceof PdfStream && n instanceof PdfStream && b.dict.name('Type') === 'ObjStm' && n.dict.name('Type') === 'ObjStm') r.approve(num, Level.none);
  }
}

const DSS_KEYS = new Set(['Type', 'Certs', 'CRLs', 'OCSPs', 'VRI']);
const VRI_KEYS = new Set(['Type', 'TU', 'TS', 'Cert', 'CRL', 'OCSP']);
const VRI_KEY = /^[0-9A-Fa-f]{40}$/;

/**
 * ETSI EN 319 142-1 §5.4.2 (ISO 32000-2 §12.8.4.3): the DSS holds certificates, CRLs and OCSP
 * responses as streams, and per-signature VRI dictionaries keyed by the SHA-1 of the signature.
 * New streams are fine; an existing one rewritten is not.
 */
export function reviewDss(r: Review): void {
  const rootRef = r.next.trailer.get('Root') as PdfRef;
  const bRaw = r.base.catalog().dict.get('DSS');
  const nRaw = r.next.catalog().dict.get('DSS');
  if (nRaw === undefined) return;
  const dss = r.nextDict(nRaw);
  if (!dss) r.fail('/DSS no es un diccionario');
  const dssPlace = keyPlace(rootRef, { from: rootRef.num, path: '' }, 'DSS');
  r.approveSlot(bRaw, nRaw, Level.lta, dssPlace, '/DSS');
  const extra = [...dss.map.keys()].filter((k) => !DSS_KEYS.has(k));
  if (extra.length) r.fail(`/DSS tiene entradas inesperadas (${extra.join(', ')})`);
  const bDss = r.baseDict(bRaw);
  for (const key of ['Certs', 'CRLs', 'OCSPs']) reviewStreamArray(r, bDss?.get(key), dss.get(key), keyPlace(nRaw, dssPlace, key), `/DSS/${key}`);
  const vriRaw = dss.get('VRI');
  if (vriRaw === undefined) return;
  const vri = r.nextDict(vriRaw);
  if (!vri) r.fail('/VRI no es un diccionario');
  const vriPlace = keyPlace(nRaw, dssPlace, 'VRI');
  r.approveSlot(bDss?.get('VRI'), vriRaw, Level.lta, vriPlace, '/VRI');
  const bVri = r.baseDict(bDss?.get('VRI'));
  for (const [key, entryRaw] of vri.map) {
    if (!VRI_KEY.test(key)) r.fail(`/VRI tiene una clave que no es un resumen SHA-1 (${key.slice(0, 50)})`);
    const entry = r.nextDict(entryRaw);
    if (!entry) r.fail('una entrada de /VRI no es un diccionario');
    const entryPlace = keyPlace(vriRaw, vriPlace, key);
    r.approveSlot(bVri?.get(key), entryRaw, Level.lta, entryPlace, `/VRI/${key}`);
    const extraVri = [...entry.map.keys()].filter((k) => !VRI_KEYS.has(k));
    if (extraVri.length) r.fail(`una entrada de /VRI tiene claves inesperadas (${extraVri.join(', ')})`);
    const bEntry = r.baseDict(bVri?.get(key));
    for (const k of ['Cert', 'CRL', 'OCSP']) reviewStreamArray(r, bEntry?.get(k), entry.get(k), keyPlace(entryRaw, entryPlace, k), `/VRI/${k}`);
    reviewNewStream(r, entry.get('TS'), '/VRI/TS');
  }
}

function reviewStreamArray(r: Review, bRaw: PdfObject | undefined, nRaw: PdfObject | undefined, place: Place, what: string): void {
  if (nRaw === undefined) return;
  const arr = r.next.array(nRaw);
  if (!arr) r.fail(`${what} no es un arreglo`);
  r.approveSlot(bRaw, nRaw, Level.lta, place, what);
  for (const item of arr) reviewNewStream(r, item, what);
}

/** A validation-data stream: an existing one unchanged, or a new one. */
function reviewNewStream(r: Review, raw: PdfObject | undefined, what: string): void {
  if (raw === undefined) return;
  if (!(raw instanceof PdfRef) || !(r.next.getObject(raw.num) instanceof PdfStream)) r.fail(`${what} debe contener referencias a streams`);
  if (!r.changed.has(raw.num)) return;
  if (!r.isCreated(raw.num)) r.fail(`${what} reescribe un stream existente`);
  r.approve(raw.num, Level.lta);
  const s = r.next.getObject(raw.num) as PdfStream;
  r.approveCreated(s.dict, Level.lta);
}
