/**
 * Reading an XML file that may be hostile, before anything signs or verifies it: bounded in
 * size and nesting, UTF-8 only, and without DOCTYPE or entity declarations, which are refused
 * before the parser sees them (XXE, "billion laughs"; a comprobante never needs them). The
 * parser is @xmldom/xmldom in strict mode: every error or warning stops it.
 */
import { DOMParser, type Document, type Element, type Node } from '@xmldom/xmldom';

/** Far above any comprobante (a 1,000-line factura is about 1 MB) and cheap to parse. */
export const MAX_XML_BYTES = 10 * 1024 * 1024;
/** A comprobante with its signature nests about 12 deep; the canonicalizer recurses per level. */
export const MAX_XML_DEPTH = 64;
/**
 * Tags and namespace declarations, counted on the text before parsing: xmldom spends several
 * microseconds per element, and inclusive C14N copies the namespaces in scope at each element,
 * so 10 MB of `<a/>` or of declarations would hold a verifier for a long time. A factura of
 * 5,000 lines has about 80,000 tags and no namespaces besides its signature's.
 */
export const MAX_XML_TAGS = 100_000;
export const MAX_NAMESPACE_DECLARATIONS = 100;

/** A problem with the XML itself, in Spanish, for the person who gave the file. */
export class XmlProblem extends Error {
  override name = 'XmlProblem';
}

/**
 * What a caller will add to the document and must still fit in the limits: the signer keeps
 * room for its signature, so that the verifier never refuses what Sello signed.
 */
export interface Room {
  bytes: number;
  tags: number;
  namespaces: number;
}

const NO_ROOM: Room = { bytes: 0, tags: 0, namespaces: 0 };

export interface ParsedXml {
  doc: Document;
  root: Element;
  /** The decoded text that was parsed (without a BOM), for callers that insert into the bytes. */
  text: string;
  /** How a character offset in `text` becomes a byte offset in the input. */
  byteOffset: (at: number) => number;
}

export interface ParseOptions {
  /**
   * Also accept a document that declares ISO-8859-1 (SUNAT accepts it, and greenter's older
   * samples use it); the SRI's documents are UTF-8 only, the default.
   */
  latin1?: boolean;
}

const ELEMENT = 1;
const TEXT = 3;
const PROCESSING_INSTRUCTION = 7;

/**
 * Parses `bytes` as the XML of a comprobante, or throws an XmlProblem saying why not.
 *
 * @example const { root } = parseXml(await readFile('factura.xml'));
 */
export function parseXml(bytes: Buffer, room: Room = NO_ROOM, opts: ParseOptions = {}): ParsedXml {
  const { text, byteOffset } = decodeXml(bytes, MAX_XML_BYTES - room.bytes, opts.latin1 === true);
  // Checked on the text, so that no parser ever expands, fetches or even reads a declaration.
  if (/<!DOCTYPE/i.test(text) || /<!ENTITY/i.test(text)) {
    throw new XmlProblem('El XML trae una declaración DOCTYPE o ENTITY; Sello no las admite porque pueden leer archivos del equipo o agotar la memoria, y un comprobante no las necesita.');
  }
  const maxTags = MAX_XML_TAGS - room.tags;
  if (occurrences(text, '<') > maxTags) {
    throw new XmlProblem(`El XML tiene más de ${maxTags.toLocaleString('es-EC')} etiquetas; un comprobante no llega a tanto.`);
  }
  const maxNamespaces = MAX_NAMESPACE_DECLARATIONS - room.namespaces;
  if (occurrences(text, 'xmlns') > maxNamespaces) {
    throw new XmlProblem(`El XML declara más de ${maxNamespaces} espacios de nombres (xmlns); un comprobante no necesita tantos.`);
  }
  let doc: Document;
  let problem: XmlProblem | undefined; // xmldom wraps what onError throws in its own ParseError
  try {
    doc = new DOMParser({
      // XML 1.0 line ends only (§2.11): xmldom's default also folds U+0085, U+2028 and U+2029,
      // which would change what is digested compared with libxml2 or the SRI's Java.
      normalizeLineEndings: (source) => source.replace(/\r\n?/g, '\n'),
      onError: (_level, _message, context: unknown) => {
        problem ??= new XmlProblem(malformed(context));
        throw problem;
      },
    }).parseFromString(text, 'text/xml');
  } catch {
    throw problem ?? new XmlProblem('El XML está mal formado.');
  }
  const root = doc.documentElement;
  if (!root) throw new XmlProblem('El XML no tiene un elemento raíz.');
  checkTail(root);
  checkInside(root);
  return { doc, root, text, byteOffset };
}

function decodeXml(bytes: Buffer, maxBytes: number, latin1: boolean): { text: string; byteOffset: (at: number) => number } {
  const decoded = decodeText(bytes, maxBytes, latin1);
  // XML 1.0 §2.2: xmldom lets these control characters through; libxml2 and Java refuse the file.
  // eslint-disable-next-line no-control-regex
  const control = /[\x00-\x08\x0B\x0C\x0E-\x1F\uFFFE\uFFFF]/.exec(decoded.text);
  if (control) {
    throw new XmlProblem(`El XML contiene el carácter de control U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}, que XML no admite.`);
  }
  return decoded;
}

function decodeText(bytes: Buffer, maxBytes: number, latin1: boolean): { text: string; byteOffset: (at: number) => number } {
  if (bytes.length === 0) throw new XmlProblem('El archivo XML está vacío.');
  if (bytes.length > maxBytes) {
    const mb = (n: number): string => (n / 1024 / 1024).toFixed(n % (1024 * 1024) === 0 ? 0 : 2);
    throw new XmlProblem(`El XML pesa ${mb(bytes.length)} MB; Sello admite hasta ${mb(maxBytes)} MB.`);
  }
  const b0 = bytes[0];
  const b1 = bytes[1];
  if ((b0 === 0xfe && b1 === 0xff) || (b0 === 0xff && b1 === 0xfe) || b0 === 0 || b1 === 0) {
    throw new XmlProblem('El XML no está en UTF-8 (parece UTF-16); el SRI solo admite UTF-8.');
  }
  const bom = b0 === 0xef && b1 === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  if (latin1 && bom === 0) {
    // ISO-8859-1 maps each byte to the code point of the same value (Node's 'latin1', not WHATWG's windows-1252).
    const head = bytes.subarray(0, 200).toString('latin1');
    if (/^ISO[-_]?8859-1$/i.test(declaredEncoding(head) ?? '')) return { text: bytes.toString('latin1'), byteOffset: (at) => at };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes); // drops a UTF-8 BOM
  } catch {
    throw new XmlProblem('El XML no es texto UTF-8 válido; guárdelo en UTF-8, la codificación que exige el SRI.');
  }
  const declared = declaredEncoding(text);
  if (declared !== undefined && !/^utf-?8$/i.test(declared)) {
    throw new XmlProblem(
      latin1
        ? `El XML declara la codificación ${declared}; Sello admite UTF-8 e ISO-8859-1.`
        : `El XML declara la codificación ${declared}; el SRI solo admite UTF-8.`,
    );
  }
  return { text, byteOffset: (at) => bom + Buffer.byteLength(text.slice(0, at), 'utf8') };
}

function declaredEncoding(text: string): string | undefined {
  return /^<\?xml[^>]*?encoding\s*=\s*["']([^"']*)["']/.exec(text)?.[1];
}

function occurrences(text: string, needle: string): number {
  let n = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) n++;
  return n;
}

function malformed(context: unknown): string {
  const locator = (context as { locator?: { lineNumber?: number; columnNumber?: number } } | undefined)?.locator;
  const line = locator?.lineNumber;
  return line ? `El XML está mal formado cerca de la línea ${line}, columna ${locator?.columnNumber ?? 1}.` : 'El XML está mal formado.';
}

/** Only white space may follow the root: the signature goes right before its end tag. */
function checkTail(root: Element): void {
  for (let n: Node | null = root.nextSibling; n; n = n.nextSibling) {
    if (n.nodeType !== TEXT || (n.nodeValue ?? '').trim() !== '') {
      throw new XmlProblem('El XML tiene comentarios o instrucciones después del elemento raíz; un comprobante termina con su elemento raíz.');
    }
  }
}

/** Depth bound, and no processing instructions inside the root (C14N libraries disagree on them). */
function checkInside(root: Element): void {
  const stack: Array<{ node: Node; depth: number }> = [{ node: root, depth: 1 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const { node, depth } = item;
    if (depth > MAX_XML_DEPTH) throw new XmlProblem(`El XML anida más de ${MAX_XML_DEPTH} elementos; un comprobante no llega a tanto.`);
    if (node.nodeType === PROCESSING_INSTRUCTION) throw new XmlProblem('El XML tiene instrucciones de procesamiento (<?…?>) dentro del comprobante; Sello no las admite.');
    if (node.nodeType !== ELEMENT) continue;
    for (let c = node.firstChild; c; c = c.nextSibling) stack.push({ node: c, depth: depth + 1 });
  }
}
