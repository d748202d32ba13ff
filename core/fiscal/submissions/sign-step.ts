/**
 * `pending` → `signed`: the comprobante's XML (factura, notaCredito…: core/fiscal/sri/comprobantes.ts)
 * is built from what was stored when the document was numbered (the computed document, the
 * issuer as it was then, the access key), signed XAdES-BES with the issuer's certificate, and
 * its exact bytes are what every send will carry (a re-serialised signed XML no longer verifies).
 *
 * A failure that a person fixes on the token's side (no PIN yet, a wrong PIN, a token not
 * plugged in: core/signing/requests/failure-policy.ts, the same rule as signing requests) makes
 * the document wait; anything else (an expired certificate, one whose key usage is not digital
 * signature, a certificate deleted meanwhile) ends it `failed`, with the reason in Spanish.
 */
import { assertUsableForSigning, findCertificateRow } from '../../certificates/index.js';
import type { Store } from '../../db/index.js';
import { isSelloError } from '../../errors/index.js';
import { waitsForPerson } from '../../signing/requests/index.js';
import type { XmlHash } from '../../xml/index.js';
import { comprobanteDefinition, type Ambiente, type Issuer, type Numbering } from '../sri/index.js';
import type { IssuerKeys } from './issuer-keys.js';
import type { StepOutcome } from './outcome.js';
import { PIN_RECHECK_S } from './schedule.js';
import type { ClaimedSubmission } from './store.js';

export interface SignStepDeps {
  store: Store;
  keys: IssuerKeys;
  hash: XmlHash;
  timeScale: number;
  now: () => number;
}

/**
 * The numbering of a document from its access key: ddmmaaaa(8) codDoc(2) RUC(13) ambiente(1)
 * estab(3) ptoEmi(3) secuencial(9) código(8) tipoEmision(1) dígito(1).
 */
export function numberingOf(accessKey: string): Numbering {
  const estab = accessKey.slice(24, 27);
  const pto = accessKey.slice(27, 30);
  const secuencial = accessKey.slice(30, 39);
  return { ambiente: Number(accessKey[23]) as Ambiente, secuencial, numero: `${estab}-${pto}-${secuencial}`, accessKey };
}

export async function signStep(row: ClaimedSubmission, deps: SignStepDeps): Promise<StepOutcome> {
  const cert = findCertificateRow(deps.store, row.certificate_id);
  if (!cert) {
    return { kind: 'failed', reason: `El certificado del emisor (${row.certificate_id}) ya no existe en Sello; no se pudo firmar. Configure el emisor con otro certificado y emita el comprobante de nuevo.` };
  }
  // A row that already waits keeps its reason (a wrong PIN stays said until a new one is given).
  if (!deps.keys.ready(cert)) return waitForPin(row.last_error ?? pinWanted(cert.token_label, cert.token_serial), deps);
  try {
    assertUsableForSigning(cert, new Date(deps.now()));
    const xml = comprobanteDefinition(row.kind).buildXml(JSON.parse(row.issuer) as Issuer, JSON.parse(row.computed) as unknown, numberingOf(row.access_key));
    return { kind: 'signed', signedXml: await deps.keys.sign(cert, xml, deps.hash) };
  } catch (err) {
    const code = isSelloError(err) ? err.code : 'internal_error';
    if (waitsForPerson(code)) {
      const text = isSelloError(err) ? err.message : '';
      const again = code === 'pin_incorrect' ? ' Escriba el PIN correcto en Firmas pendientes (ventana de Sello) o con POST /admin/api/fiscal/token-pin.' : '';
      return waitForPin(`Esperando al token del emisor: ${text}${again}`, deps);
    }
    const reason = isSelloError(err)
      ? `No se pudo firmar el comprobante: ${err.message}`
      : `No se pudo firmar el comprobante por un error interno de Sello (${err instanceof Error ? err.message : String(err)}).`;
    return { kind: 'failed', reason };
  }
}

function pinWanted(label: string | null, serial: string | null): string {
  return (
    `Esperando el PIN del token «${label ?? 'sin etiqueta'}» (serie ${serial ?? '?'}) del emisor. Escríbalo en Firmas pendientes ` +
    '(ventana de Sello) o con POST /admin/api/fiscal/token-pin; el comprobante se firma y se envía en cuanto lo tenga.'
  );
}

function waitForPin(reason: string, deps: SignStepDeps): StepOutcome {
  return { kind: 'wait', dueAt: deps.now() + PIN_RECHECK_S * 1000 * deps.timeScale, reason };
}
