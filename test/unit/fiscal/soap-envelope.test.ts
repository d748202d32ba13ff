/**
 * The SOAP the SRI client writes and the parser it reads answers with. Requests are checked
 * against the WSDLs' own schemas with xmllint; answers are hostile text.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DOMParser, XMLSerializer, type Element } from '@xmldom/xmldom';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AUTORIZACION_NS,
  RECEPCION_NS,
  SOAP_ENV_NS,
  UnexpectedAnswer,
  autorizacionComprobanteEnvelope,
  parseSoapAnswer,
  validarComprobanteEnvelope,
} from '../../../core/fiscal/sri/soap-envelope.js';
import { repoRoot } from '../../helpers/cli.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sello-soap-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The operation element of a request envelope, serialised alone. */
function operation(envelope: string): { element: Element; xml: string } {
  const doc = new DOMParser().parseFromString(envelope, 'text/xml');
  const body = doc.getElementsByTagNameNS(SOAP_ENV_NS, 'Body')[0]!;
  let element: Element | undefined;
  for (let n = body.firstChild; n; n = n.nextSibling) if (n.nodeType === n.ELEMENT_NODE) element = n as Element;
  return { element: element!, xml: new XMLSerializer().serializeToString(element!) };
}

/** xmllint's verdict on `xml` against the <xs:schema> inside a WSDL of test/fixtures/sri/wsdl. */
async function validatesAgainstWsdl(xml: string, wsdl: string): Promise<{ ok: boolean; stderr: string }> {
  const text = await readFile(join(repoRoot, 'test/fixtures/sri/wsdl', wsdl), 'utf8');
  const schema = /<xs:schema[\s\S]*<\/xs:schema>/.exec(text)![0];
  const xsd = join(dir, `${wsdl}.xsd`);
  const file = join(dir, `${wsdl}.xml`);
  await writeFile(xsd, schema);
  await writeFile(file, xml);
  return new Promise((resolve) => {
    execFile('xmllint', ['--noout', '--nonet', '--schema', xsd, file], (err, _out, stderr) => resolve({ ok: !err, stderr: String(stderr) }));
  });
}

describe('request envelopes', () => {
  it('validarComprobante: SOAP 1.1, the operation in the recepción namespace, `xml` unqualified holding the exact bytes in base64', async () => {
    const bytes = Buffer.from('<?xml version="1.0" encoding="UTF-8"?>\r\n<factura id="comprobante">Ñandú &amp; 1</factura>\r\n', 'utf8');
    const envelope = validarComprobanteEnvelope(bytes);
    const { element, xml } = operation(envelope);
    expect(element.namespaceURI).toBe(RECEPCION_NS);
    expect(element.localName).toBe('validarComprobante');
    const param = element.getElementsByTagName('xml')[0]!;
    expect(param.namespaceURI).toBeNull();
    expect(Buffer.from(param.textContent!, 'base64').equals(bytes)).toBe(true);
    expect(await validatesAgainstWsdl(xml, 'RecepcionComprobantesOffline.wsdl')).toEqual({ ok: true, stderr: expect.stringContaining('validates') });
  });

  it('a subarray is sent as its own bytes, not its whole buffer', () => {
    const whole = Buffer.from('xxx<a/>yyy');
    const { element } = operation(validarComprobanteEnvelope(whole.subarray(3, 7)));
    expect(Buffer.from(element.textContent!, 'base64').toString()).toBe('<a/>');
  });

  it('autorizacionComprobante: `claveAccesoComprobante` unqualified', async () => {
    const key = '1804202401123456789000110010010000000051234567811';
    const { element, xml } = operation(autorizacionComprobanteEnvelope(key));
    expect(element.namespaceURI).toBe(AUTORIZACION_NS);
    expect(element.getElementsByTagName('claveAccesoComprobante')[0]?.textContent).toBe(key);
    expect((await validatesAgainstWsdl(xml, 'AutorizacionComprobantesOffline.wsdl')).ok).toBe(true);
  });

  it('the WSDL schema itself refuses a qualified child (the check above means something)', async () => {
    const qualified = `<ec:validarComprobante xmlns:ec="${RECEPCION_NS}"><ec:xml>AA==</ec:xml></ec:validarComprobante>`;
    expect((await validatesAgainstWsdl(qualified, 'RecepcionComprobantesOffline.wsdl')).ok).toBe(false);
  });

  it('an access key that is not digits never reaches the XML', () => {
    expect(() => autorizacionComprobanteEnvelope('1<x/>')).toThrow(TypeError);
  });
});

const envelope = (body: string) => `<soap:Envelope xmlns:soap="${SOAP_ENV_NS}"><soap:Body>${body}</soap:Body></soap:Envelope>`;

function refusal(text: string): string {
  try {
    parseSoapAnswer(text);
  } catch (err) {
    expect(err).toBeInstanceOf(UnexpectedAnswer);
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('parseSoapAnswer', () => {
  it('returns the Body’s first element', () => {
    const answer = parseSoapAnswer(`<?xml version="1.0"?>${envelope('<ns2:x xmlns:ns2="urn:x"><a/></ns2:x>')}`);
    expect(answer.kind === 'body' && answer.element.localName).toBe('x');
  });

  it('a Header before the Body is fine', () => {
    const text = `<soap:Envelope xmlns:soap="${SOAP_ENV_NS}"><soap:Header/><soap:Body><r/></soap:Body></soap:Envelope>`;
    expect(parseSoapAnswer(text).kind).toBe('body');
  });

  it('returns a Fault’s code and string', () => {
    expect(parseSoapAnswer(envelope('<soap:Fault><faultcode>soap:Server</faultcode><faultstring> Error interno </faultstring></soap:Fault>'))).toEqual({
      kind: 'fault',
      faultcode: 'soap:Server',
      faultstring: 'Error interno',
    });
  });

  it('refuses any DOCTYPE: internal entities, external ones, a bare one', () => {
    const body = envelope('<r/>');
    expect(refusal(`<!DOCTYPE x [<!ENTITY a "b">]>${body}`)).toMatch(/DOCTYPE/);
    expect(refusal(`<?xml version="1.0"?>\n<!DOCTYPE soap:Envelope SYSTEM "file:///etc/passwd">${body}`)).toMatch(/DOCTYPE/);
    expect(refusal(`<!-- c --><!doctype soap:Envelope>${body}`)).toMatch(/DOCTYPE/);
  });

  it('refuses what is not well formed, an undefined entity, text, nothing', () => {
    expect(refusal(envelope('<r>'))).toMatch(/no es XML bien formado/);
    expect(refusal(envelope('<r>&nada;</r>'))).toMatch(/no es XML bien formado/);
    expect(refusal('Service Unavailable')).toMatch(/no es XML bien formado/);
    expect(refusal('')).toMatch(/no es XML bien formado/);
  });

  it('refuses another root, SOAP 1.2, a missing or empty Body', () => {
    expect(refusal('<html><body>Mantenimiento</body></html>')).toMatch(/no es un sobre SOAP 1\.1 \(raíz «html»\)/);
    expect(refusal('<env:Envelope xmlns:env="http://www.w3.org/2003/05/soap-envelope"><env:Body/></env:Envelope>')).toMatch(/no es un sobre SOAP 1\.1/);
    expect(refusal(`<soap:Envelope xmlns:soap="${SOAP_ENV_NS}"/>`)).toMatch(/no tiene Body/);
    expect(refusal(envelope(''))).toMatch(/Body SOAP está vacío/);
  });

  it('keeps messages short whatever the answer holds', () => {
    const message = refusal(`<${'a'.repeat(100_000)}>`);
    expect(message.length).toBeLessThan(300);
  });
});
