/**
 * What the fake SRI checks in a received comprobante, with real tools: the XSD of its root and
 * version (`xmllint --schema`), the access key (49 digits, modulo-11 digit, components equal to
 * the XML's fields) and the XAdES signature (`xmlsec1 --verify`, key only from the X509
 * certificate, same-document references only, plus the References the SRI requires).
 *
 * Problems found at reception make a DEVUELTA; "late" problems (signature, key components) are
 * reported where the fake is told to: the real SRI reports them at authorization (NO AUTORIZADO).
 */
import { execFile } from 'node:child_process';
import { writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DOMParser, type Element } from '@xmldom/xmldom';
import { accessKeyCheckDigit } from '../../../core/documents/access-key.js';
import { sriMessages, type FakeMessage } from './answers.js';

export const XSD_DIR = fileURLToPath(new URL('../../fixtures/sri/xsd/', import.meta.url));

const DSIG_NS = 'http://www.w3.org/2000/09/xmldsig#';
const XADES_NS = 'http://uri.etsi.org/01903/v1.3.2#';
const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
const SIGNED_PROPERTIES_TYPE = 'http://uri.etsi.org/01903#SignedProperties';

/** The XSD for each root element and version the SRI accepts, and the root's codDoc. */
const SCHEMAS: Record<string, { codDoc: string; versions: Record<string, string> }> = {
  factura: { codDoc: '01', versions: { '1.0.0': 'factura_V1.1.0.xsd', '1.1.0': 'factura_V1.1.0.xsd', '2.0.0': 'factura_V2.1.0.xsd', '2.1.0': 'factura_V2.1.0.xsd' } },
  liquidacionCompra: { codDoc: '03', versions: { '1.0.0': 'LiquidacionCompra_V1.1.0.xsd', '1.1.0': 'LiquidacionCompra_V1.1.0.xsd' } },
  notaCredito: { codDoc: '04', versions: { '1.0.0': 'NotaCredito_V1.1.0.xsd', '1.1.0': 'NotaCredito_V1.1.0.xsd' } },
  notaDebito: { codDoc: '05', versions: { '1.0.0': 'NotaDebito_V1.0.0.xsd' } },
  guiaRemision: { codDoc: '06', versions: { '1.0.0': 'GuiaRemision_V1.1.0.xsd', '1.1.0': 'GuiaRemision_V1.1.0.xsd' } },
  comprobanteRetencion: { codDoc: '07', versions: { '1.0.0': 'ComprobanteRetencion_V1.0.0.xsd', '2.0.0': 'ComprobanteRetencion_V2.0.0.xsd' } },
};

export interface ComprobanteFacts {
  root: string;
  version: string;
  claveAcceso: string;
  ambiente: string;
  tipoEmision: string;
  ruc: string;
  codDoc: string;
  estab: string;
  ptoEmi: string;
  secuencial: string;
  /** dd/mm/aaaa; absent in a guía de remisión. */
  fechaEmision?: string;
}

export interface FakeChecks {
  xsd: boolean;
  accessKey: boolean;
  signature: boolean;
}

export type Inspection =
  /** Refused at reception: DEVUELTA with these messages. `claveAcceso` is `N/A` when unreadable. */
  | { ok: false; claveAcceso: string; xml?: string; facts?: ComprobanteFacts; mensajes: FakeMessage[] }
  /** Received; `late` holds the signature and key-component problems, if any. */
  | { ok: true; xml: string; facts: ComprobanteFacts; late: FakeMessage[] };

function run(cmd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 30_000, maxBuffer: 4 * 1024 * 1024 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : -1) : 0;
      resolve({ code, stdout: String(stdout), stderr: String(stderr) });
    });
  });
}

function children(el: Element): Element[] {
  const out: Element[] = [];
  for (let n = el.firstChild; n; n = n.nextSibling) if (n.nodeType === n.ELEMENT_NODE) out.push(n as Element);
  return out;
}

function child(el: Element | undefined, name: string, ns: string | null = null): Element | undefined {
  return el ? children(el).find((c) => c.localName === name && (c.namespaceURI ?? null) === ns) : undefined;
}

function descendants(el: Element, name: string, ns: string): Element[] {
  return Array.from(el.getElementsByTagNameNS(ns, name));
}

let fileCounter = 0;

/** Inspects the decoded bytes of a received comprobante; `workDir` holds temporary files. */
export async function inspectComprobante(bytes: Buffer, options: { workDir: string; checks: FakeChecks; xsdDir?: string }): Promise<Inspection> {
  const refuse = (detail: string, claveAcceso = 'N/A', xml?: string): Inspection => ({
    ok: false,
    claveAcceso,
    ...(xml !== undefined ? { xml } : {}),
    mensajes: [sriMessages.estructura(detail)],
  });
  let xml: string;
  try {
    xml = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse('El archivo no está codificado en UTF-8.');
  }
  const rootAt = xml.search(/<[\p{L}_:]/u);
  if (/<!DOCTYPE/i.test(rootAt < 0 ? xml : xml.slice(0, rootAt))) return refuse('No se admite una declaración DOCTYPE.', 'N/A', xml);
  let root: Element | null;
  try {
    root = new DOMParser({
      onError: (level, message) => {
        if (level !== 'warning') throw new Error(message);
      },
    }).parseFromString(xml, 'text/xml').documentElement;
  } catch (err) {
    return refuse(`${err instanceof Error ? err.message : String(err)}`.slice(0, 300), 'N/A', xml);
  }
  if (!root) return refuse('Content is not allowed in prolog.', 'N/A', xml);

  const info = child(root, 'infoTributaria');
  const text = (name: string) => child(info, name)?.textContent?.trim() ?? '';
  const claveAcceso = text('claveAcceso');
  const keyForAnswer = claveAcceso || 'N/A';
  const schema = SCHEMAS[root.localName ?? ''];
  if (!schema || root.namespaceURI) return refuse(`El tipo de comprobante «${root.tagName}» no existe.`, keyForAnswer, xml);
  const version = root.getAttribute('version') ?? '';
  const xsd = schema.versions[version];
  if (!xsd) {
    return {
      ok: false,
      claveAcceso: keyForAnswer,
      xml,
      mensajes: [sriMessages.versionDescontinuada(`La versión «${version}» del comprobante ${root.localName} no está vigente.`)],
    };
  }

  const file = join(options.workDir, `comprobante-${process.pid}-${++fileCounter}.xml`);
  // xmllint and xmlsec1 read files; with both checks off (a benchmark) nothing is written.
  if (options.checks.xsd || options.checks.signature) await writeFile(file, bytes);
  try {
    if (options.checks.xsd) {
      const lint = await run('xmllint', ['--noout', '--nonet', '--schema', join(options.xsdDir ?? XSD_DIR, xsd), file]);
      if (lint.code !== 0) {
        const first = lint.stderr
          .split('\n')
          .map((l) => l.trim())
          .find((l) => l.includes('error') || l.includes('fails to validate'));
        const detail = (first ?? 'El comprobante no cumple el esquema XSD.').replace(/^.*?Schemas validity error : /, '').replace(`${file}:`, '');
        return refuse(detail, keyForAnswer, xml);
      }
    }
    if (!claveAcceso) return refuse('No se ha encontrado información en el tag claveAcceso.', 'N/A', xml);
    const fechaEmision = children(root)
      .flatMap((c) => children(c))
      .find((c) => c.localName === 'fechaEmision')
      ?.textContent?.trim();
    const facts: ComprobanteFacts = {
      root: root.localName ?? '',
      version,
      claveAcceso,
      ambiente: text('ambiente'),
      tipoEmision: text('tipoEmision'),
      ruc: text('ruc'),
      codDoc: text('codDoc'),
      estab: text('estab'),
      ptoEmi: text('ptoEmi'),
      secuencial: text('secuencial'),
      ...(fechaEmision ? { fechaEmision } : {}),
    };
    if (options.checks.accessKey) {
      if (!/^\d{49}$/.test(claveAcceso)) return refuse(`La clave de acceso «${claveAcceso}» debe tener 49 dígitos.`, keyForAnswer, xml);
      const digit = accessKeyCheckDigit(claveAcceso.slice(0, 48));
      if (String(digit) !== claveAcceso[48]) {
        return refuse(`El dígito verificador de la clave de acceso ${claveAcceso} no es válido (módulo 11: ${digit}).`, keyForAnswer, xml);
      }
    }
    const late: FakeMessage[] = [];
    if (options.checks.accessKey) {
      const differences = keyDifferences(facts, schema.codDoc);
      if (differences.length > 0) {
        late.push(sriMessages.estructuraClave(`La clave de acceso tiene componentes diferentes a los del comprobante: ${differences.join(', ')}.`));
      }
    }
    if (options.checks.signature) {
      const problem = (await signatureProblem(root, file)) ?? undefined;
      if (problem) late.push(sriMessages.firmaInvalida(problem));
    }
    return { ok: true, xml, facts, late };
  } finally {
    await rm(file, { force: true });
  }
}

/** The components of the key that differ from the XML's fields. */
function keyDifferences(f: ComprobanteFacts, rootCodDoc: string): string[] {
  const k = f.claveAcceso;
  const out: string[] = [];
  if (f.fechaEmision) {
    const [d, m, y] = f.fechaEmision.split('/');
    if (k.slice(0, 8) !== `${d}${m}${y}`) out.push('fecha de emisión');
  }
  if (k.slice(8, 10) !== f.codDoc || f.codDoc !== rootCodDoc) out.push('tipo de comprobante');
  if (k.slice(10, 23) !== f.ruc) out.push('RUC');
  if (k.slice(23, 24) !== f.ambiente) out.push('ambiente');
  if (k.slice(24, 30) !== `${f.estab}${f.ptoEmi}`) out.push('serie');
  if (k.slice(30, 39) !== f.secuencial) out.push('secuencial');
  if (k.slice(47, 48) !== f.tipoEmision) out.push('tipo de emisión');
  return out;
}

/** Why the signature is not one the SRI accepts, or null. */
async function signatureProblem(root: Element, file: string): Promise<string | null> {
  const signatures = children(root).filter((c) => c.localName === 'Signature' && c.namespaceURI === DSIG_NS);
  if (signatures.length === 0) return 'El comprobante no está firmado.';
  if (signatures.length > 1) return 'El comprobante tiene más de una firma.';
  const signature = signatures[0]!;
  if (children(root).at(-1) !== signature) return 'La firma no es el último elemento del comprobante.';
  const id = root.getAttribute('id');
  const references = descendants(child(signature, 'SignedInfo', DSIG_NS) ?? signature, 'Reference', DSIG_NS);
  const documentRef = references.find((r) => r.getAttribute('URI') === `#${id}`);
  if (!id || !documentRef) return 'La firma no cubre el comprobante (falta la referencia a #comprobante).';
  if (!descendants(documentRef, 'Transform', DSIG_NS).some((t) => t.getAttribute('Algorithm') === ENVELOPED)) {
    return 'La referencia al comprobante no usa la transformación enveloped-signature.';
  }
  const propsRef = references.find((r) => r.getAttribute('Type') === SIGNED_PROPERTIES_TYPE);
  const props = descendants(signature, 'SignedProperties', XADES_NS);
  if (!propsRef || !props.some((p) => `#${p.getAttribute('Id')}` === propsRef.getAttribute('URI'))) {
    return 'La firma no es XAdES-BES: falta la referencia a SignedProperties.';
  }
  const keyInfo = child(signature, 'KeyInfo', DSIG_NS);
  if (!keyInfo || descendants(keyInfo, 'X509Certificate', DSIG_NS).length === 0) return 'La firma no incluye el certificado X509 del firmante.';
  const verify = await run('xmlsec1', [
    '--verify',
    '--enabled-key-data',
    'x509',
    '--enabled-reference-uris',
    'same-doc',
    '--insecure',
    `--id-attr:id`,
    root.localName ?? '',
    '--id-attr:Id',
    `${XADES_NS}:SignedProperties`,
    '--id-attr:Id',
    `${DSIG_NS}:KeyInfo`,
    file,
  ]);
  if (verify.code === 0 && /^OK$/m.test(verify.stdout + verify.stderr)) return null;
  const why = (verify.stdout + verify.stderr)
    .split('\n')
    .map((l) => /msg=([^;]*)|error=\d+:([^:]*)/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => (m[1] ?? m[2] ?? '').trim())
    .filter(Boolean)
    .at(-1);
  return `La firma del comprobante no es válida${why ? ` (${why})` : ''}.`;
}
