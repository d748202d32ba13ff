/**
 * Rules for the interactive form (PDF 32000-1:2008 §12.7) after signing, after pyHanko's
 * FormUpdatingRule, SigFieldCreationRule, SigFieldModificationRule and
 * GenericFieldModificationRule:
 * - new fields may only be signature fields (a new signature, or a document timestamp);
 * - a field may take a value and a new appearance (form filling), nothing else of it changes;
 * - a signature already made is never touched; no field is removed.
 */
import type { PdfDocument } from '../syntax/pdf-document.js';
import { PdfDict, PdfRef, PdfStream, PdfString, decodeTextString, type PdfObject } from '../syntax/pdf-objects.js';
import { Level, keyPlace, type Place, type Review } from './diff-review.js';
import { differingKeys, sameValue } from './object-graph.js';

/** AcroForm keys a signer or a form filler may change (pyHanko's ACROFORM_EXEMPT_STRICT_COMPARISON + /SigFlags, §12.7.2 Table 218). */
const ACROFORM_EXEMPT = new Set(['Fields', 'DR', 'DA', 'Q', 'NeedAppearances', 'SigFlags']);
/** Field and widget keys that filling a field sets (§12.7.3.1, §12.5.6.19; pyHanko's VALUE_UPDATE_KEYS). */
const VALUE_KEYS = new Set(['AP', 'AS', 'V', 'F', 'DA', 'Q', 'Ff', 'Type']);
/** What may differ on a field whose state must otherwise stay as it was (Acrobat rewrites /Ff liberally). */
const ALWAYS_KEYS = new Set(['Ff', 'Type']);

export interface FormReview {
  /** Widget annotations of signature fields added or signed after `base`, with the level of each. */
  signatureWidgets: Map<number, Level>;
  /** Every widget of a field, in either revision: the page rule must not take them for free annotations. */
  fieldWidgets: Set<number>;
}

interface FieldNode {
  ref: PdfRef | undefined;
  dict: PdfDict;
  /** /FT, inherited (§12.7.3.1 Table 220). */
  type: string | undefined;
  kidsRaw: PdfObject | undefined;
  /** Widget annotations: kids without /T, or the field itself when it has no kids. */
  widgets: Array<{ ref: PdfRef | undefined; dict: PdfDict }>;
}

export function reviewForm(r: Review): FormReview {
  const out: FormReview = { signatureWidgets: new Map(), fieldWidgets: new Set() };
  const rootRef = r.next.trailer.get('Root') as PdfRef;
  const bAcroRaw = r.base.catalog().dict.get('AcroForm');
  const nAcroRaw = r.next.catalog().dict.get('AcroForm');
  const bAcro = r.baseDict(bAcroRaw);
  const nAcro = r.nextDict(nAcroRaw);
  const baseFields = listFields(r.base, bAcro?.get('Fields'), false);
  if (!nAcro) {
    if (baseFields.size) r.fail('la revisión posterior quitó el formulario');
    return out;
  }
  const acroPlace = keyPlace(rootRef, { from: rootRef.num, path: '' }, 'AcroForm');
  r.approveSlot(bAcroRaw, nAcroRaw, Level.lta, acroPlace, '/AcroForm');
  const keys = differingKeys(bAcro ?? new PdfDict(), nAcro, ACROFORM_EXEMPT);
  if (keys.length) r.fail(`la revisión posterior cambió el formulario (${keys.map((k) => `/${k}`).join(', ')})`);
  const fieldsPlace = keyPlace(nAcroRaw, acroPlace, 'Fields');
  r.approveSlot(bAcro?.get('Fields'), nAcro.get('Fields'), Level.lta, fieldsPlace, '/AcroForm/Fields');
  // Default resources of the form: fonts for field appearances (§12.7.2), changed when filling.
  const drPlace = keyPlace(nAcroRaw, acroPlace, 'DR');
  r.approveSlot(bAcro?.get('DR'), nAcro.get('DR'), Level.formFill, drPlace, '/AcroForm/DR');
  r.approveCreated(r.nextDict(nAcro.get('DR')), Level.formFill);

  const nextFields = listFields(r.next, nAcro.get('Fields'), true, (m) => r.fail(m));
  for (const f of [...baseFields.values(), ...nextFields.values()]) for (const w of f.widgets) if (w.ref) out.fieldWidgets.add(w.ref.num);
  for (const name of baseFields.keys()) if (!nextFields.has(name)) r.fail(`la revisión posterior quitó el campo «${name}»`);
  for (const [name, field] of nextFields) {
    const old = baseFields.get(name);
    if (!old) reviewNewField(r, name, field, out);
    else if (old.type !== field.type) r.fail(`la revisión posterior cambió el tipo del campo «${name}»`);
    else if (field.type === 'Sig') reviewSignatureField(r, name, old, field, out);
    else reviewFilledField(r, name, old, field);
  }
  return out;
}

/** §12.7.4.5 / §12.8: a new field must be a signature field; its value a new signature or timestamp. */
function reviewNewField(r: Review, name: string, field: FieldNode, out: FormReview): void {
  if (field.type !== 'Sig') r.fail(`la revisión posterior agregó el campo «${name}», que no es de firma`);
  if (!field.ref || !r.isCreated(field.ref.num)) r.fail(`el campo de firma nuevo «${name}» reutiliza un objeto existente`);
  const level = signatureLevel(r, name, field.dict.get('V'));
  r.approve(field.ref.num, level);
  // Its value, appearance, lock and seed value, and its widgets: all new objects (§12.7.4.5 Table 232).
  r.approveCreated(field.ref, level);
  for (const w of field.widgets) {
    if (w.ref && !r.isCreated(w.ref.num) && r.changed.has(w.ref.num)) r.fail(`el campo de firma nuevo «${name}» reutiliza una anotación existente`);
    if (w.ref) out.signatureWidgets.set(w.ref.num, level);
  }
}

/**
 * The level of a signature field's value: an approval signature is `signatures`, a document
 * timestamp (ETSI EN 319 142-1 §5.4.3) or no value yet is `lta`. The value must be a new
 * signature dictionary (§12.8.1 Table 252).
 */
function signatureLevel(r: Review, name: string, v: PdfObject | undefined): Level {
  if (v === undefined) return Level.lta;
  if (!(v instanceof PdfRef) || !r.isCreated(v.num)) r.fail(`el valor de la firma «${name}» no es un diccionario de firma nuevo`);
  const sig = r.next.getObject(v.num);
  if (!(sig instanceof PdfDict)) r.fail(`el valor de la firma «${name}» no es un diccionario`);
  const type = sig.name('Type');
  if (type !== undefined && type !== 'Sig' && type !== 'DocTimeStamp') r.fail(`el valor de la firma «${name}» no es una firma`);
  return type === 'DocTimeStamp' ? Level.lta : Level.signatures;
}

function reviewSignatureField(r: Review, name: string, old: FieldNode, field: FieldNode, out: FormReview): void {
  const wasSigned = old.dict.has('V');
  const isSigned = field.dict.has('V');
  if (wasSigned && !isSigned) r.fail(`la revisión posterior quitó la firma «${name}»`);
  if (wasSigned || !isSigned) {
    // A signature made (or a field left empty) stays as it was (pyHanko: valid when locked).
    checkField(r, name, old, field, ALWAYS_KEYS);
    if (field.ref) r.approve(field.ref.num, Level.lta);
    if (wasSigned && !sameValue(old.dict.get('V'), field.dict.get('V'))) r.fail(`la revisión posterior cambió la firma «${name}»`);
    return;
  }
  // An empty signature field signed now (§12.7.4.5).
  checkField(r, name, old, field, VALUE_KEYS);
  const level = signatureLevel(r, name, field.dict.get('V'));
  if (field.ref) r.approve(field.ref.num, Level.lta);
  r.approveCreated(field.dict.get('V'), level);
  for (const w of field.widgets) {
    const before = old.widgets.find((o) => o.ref?.num === w.ref?.num);
    reviewWidget(r, name, before?.dict, w, level);
    if (w.ref) out.signatureWidgets.set(w.ref.num, level);
  }
  if (field.widgets.length === 0 || field.widgets[0]!.dict !== field.dict) approveAppearance(r, old.dict, field.dict, field.ref, level);
}

/** §12.7.4: a value, its appearance, nothing else. */
function reviewFilledField(r: Review, name: string, old: FieldNode, field: FieldNode): void {
  checkField(r, name, old, field, VALUE_KEYS);
  if (field.ref) r.approve(field.ref.num, Level.formFill);
  // A new value may be a new object (a rich-text stream, §12.7.3.4).
  const v = field.dict.get('V');
  if (!sameValue(old.dict.get('V'), v)) r.approveCreated(v, Level.formFill);
  for (const w of field.widgets) {
    const before = old.widgets.find((o) => o.ref?.num === w.ref?.num);
    if (!before) r.fail(`la revisión posterior agregó un widget al campo «${name}»`);
    reviewWidget(r, name, before.dict, w, Level.formFill);
  }
  if (field.widgets[0]?.dict !== field.dict) approveAppearance(r, old.dict, field.dict, field.ref, Level.formFill);
}

/** The field dictionary may differ only in `allowed`; its kids stay the same objects. */
function checkField(r: Review, name: string, old: FieldNode, field: FieldNode, allowed: ReadonlySet<string>): void {
  const keys = differingKeys(old.dict, field.dict, new Set([...allowed, 'Kids']));
  if (keys.length) r.fail(`la revisión posterior cambió el campo «${name}» (${keys.map((k) => `/${k}`).join(', ')})`);
  if (!sameValue(r.base.resolve(old.kidsRaw), r.next.resolve(field.kidsRaw))) r.fail(`la revisión posterior cambió los hijos del campo «${name}»`);
  const kids = field.kidsRaw;
  if (kids instanceof PdfRef && r.changed.has(kids.num) && !r.isCreated(kids.num)) {
    // Same content (checked above): only the object was written again.
    r.approve(kids.num, Level.none);
  }
}

/** A widget annotation of a field (§12.5.6.19): its state and appearance may change. */
function reviewWidget(r: Review, name: string, before: PdfDict | undefined, w: { ref: PdfRef | undefined; dict: PdfDict }, level: Level): void {
  if (before) {
    const keys = differingKeys(before, w.dict, new Set([...VALUE_KEYS, 'MK']));
    if (keys.length) r.fail(`la revisión posterior cambió el widget del campo «${name}» (${keys.map((k) => `/${k}`).join(', ')})`);
  }
  if (w.ref) r.approve(w.ref.num, level);
  approveAppearance(r, before, w.dict, w.ref, level);
}

/**
 * §12.5.5 appearance streams: new ones are fine; an existing stream rewritten in place only when
 * the signed version uses it nowhere but in this appearance (pyHanko's
 * `_allow_in_place_appearance_update`), so that no page content can change through it.
 */
export function approveAppearance(r: Review, before: PdfDict | undefined, after: PdfDict, owner: PdfRef | undefined, level: Level): void {
  const nAp = after.get('AP');
  if (nAp === undefined) return;
  const bAp = before?.get('AP');
  const ownerPlace: Place | undefined = owner ? { from: owner.num, path: '' } : undefined;
  if (nAp instanceof PdfRef && r.changed.has(nAp.num)) {
    if (!ownerPlace) r.fail('una apariencia reescrita no pertenece a un objeto propio');
    r.approveSlot(bAp, nAp, level, keyPlace(owner, ownerPlace, 'AP'), '/AP');
  }
  const apDict = r.nextDict(nAp);
  if (!apDict) r.fail('/AP no es un diccionario');
  r.approveCreated(apDict, level);
  if (!ownerPlace) return;
  const apPlace = keyPlace(owner, ownerPlace, 'AP');
  const bApDict = r.baseDict(bAp);
  for (const key of ['N', 'R', 'D']) {
    const place = keyPlace(nAp, apPlace, key);
    const nv = apDict.get(key);
    const bv = bApDict?.get(key);
    if (nv instanceof PdfRef) rewrittenStream(r, bv, nv, place, level);
    const states = r.nextDict(nv);
    if (!states || nv instanceof PdfRef) continue;
    const bStates = r.baseDict(bv);
    for (const [state, sv] of states.map) if (sv instanceof PdfRef) rewrittenStream(r, bStates?.get(state), sv, keyPlace(nv, place, state), level);
  }
}

function rewrittenStream(r: Review, bv: PdfObject | undefined, nv: PdfRef, place: Place, level: Level): void {
  if (!r.changed.has(nv.num) || r.isCreated(nv.num)) return;
  const s = r.next.getObject(nv.num);
  if (!(s instanceof PdfStream)) return;
  r.approveSlot(bv, nv, level, place, 'una apariencia', true);
  r.approveCreated(s.dict, level);
}

/**
 * The terminal and intermediate fields by fully qualified name (§12.7.3.2), as pyHanko's
 * `_list_fields`: nodes without /T are widgets of their parent. `strict` rejects what a later
 * revision must not write (duplicate names, periods in partial names).
 */
function listFields(doc: PdfDocument, fieldsRaw: PdfObject | undefined, strict: boolean, fail?: (m: string) => never): Map<string, FieldNode> {
  const out = new Map<string, FieldNode>();
  const seen = new Set<number>();
  const walk = (items: PdfObject[] | undefined, prefix: string, inherited: string | undefined, depth: number): void => {
    if (!items || depth > 32) return;
    for (const item of items) {
      if (item instanceof PdfRef) {
        if (seen.has(item.num)) continue;
        seen.add(item.num);
      }
      const raw = doc.resolve(item);
      const dict = raw instanceof PdfDict ? raw : undefined;
      if (!dict) continue;
      const t = doc.resolve(dict.get('T'));
      if (!(t instanceof PdfString)) continue;
      const part = decodeTextString(t);
      if (strict && part.includes('.')) fail?.(`el nombre de campo «${part}» contiene un punto`);
      const name = prefix ? `${prefix}.${part}` : part;
      if (out.has(name)) {
        if (strict) fail?.(`hay dos campos llamados «${name}»`);
        continue;
      }
      const type = dict.name('FT') ?? inherited;
      const kidsRaw = dict.get('Kids');
      const kids = doc.array(kidsRaw) ?? [];
      const widgets: FieldNode['widgets'] = [];
      const subfields: PdfObject[] = [];
      for (const k of kids) {
        const kd = doc.resolve(k);
        if (!(kd instanceof PdfDict)) continue;
        if (kd.has('T')) subfields.push(k);
        else widgets.push({ ref: k instanceof PdfRef ? k : undefined, dict: kd });
      }
      if (kids.length === 0) widgets.push({ ref: item instanceof PdfRef ? item : undefined, dict });
      out.set(name, { ref: item instanceof PdfRef ? item : undefined, dict, type, kidsRaw, widgets });
      walk(subfields, name, type, depth + 1);
    }
  };
  walk(doc.array(fieldsRaw), '', undefined, 0);
  return out;
}
