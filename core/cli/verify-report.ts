/**
 * How `sello verify` shows a signature report: one line of Spanish prose, or one JSON object
 * (snake_case, the field names of the first version kept).
 */
import type { Modification, SignatureReport } from '../pdf/index.js';

const AFTER: Record<Modification, string> = {
  none: 'el documento no cambió después de firmar',
  signatures: 'después se agregaron firmas',
  form_fill: 'después se llenó el formulario',
  annotations: 'después se agregaron anotaciones',
  other: 'después se cambió el contenido',
};

/**
 * @example
 *   verifyLine(report, 0)
 *   // 'Firma 1: ANA PÉREZ, 2026-03-04T05:06:07.000Z, íntegra, cubre todo el documento, de confianza (CA de pruebas de Sello «Sello Test CA»)'
 */
export function verifyLine(r: SignatureReport, i: number): string {
  const parts = [`Firma ${i + 1}: ${r.signerName ?? 'firmante desconocido'}`, r.signingTime?.toISOString() ?? 'sin fecha'];
  if (!r.intact) parts.push(`NO íntegra (${r.problem ?? 'sin detalle'})`);
  else {
    parts.push('íntegra');
    if (r.coversWholeFile && r.modification === 'none') parts.push('cubre todo el documento');
    else if (r.modificationProblem) parts.push(`${AFTER[r.modification]}: NO permitido (${r.modificationProblem}); la firma ya no respalda lo que muestra el documento`);
    else parts.push(`${AFTER[r.modification]} (permitido)`);
  }
  if (r.trusted) parts.push(`de confianza (${r.trust.anchor === 'test_ca' ? 'CA de pruebas de Sello' : 'raíz configurada'} «${r.trust.anchorName ?? ''}»)`);
  else parts.push(`NO de confianza (${r.trust.problem ?? 'sin detalle'})`);
  return parts.join(', ');
}

/** The report as the JSON line of `sello verify --json`. */
export function verifyJson(r: SignatureReport): Record<string, unknown> {
  return {
    field: r.fieldName,
    signer: r.signerName,
    signed_at: r.signingTime?.toISOString() ?? null,
    intact: r.intact,
    covers_whole_file: r.coversWholeFile,
    sub_filter: r.subFilter,
    ...(r.problem ? { problem: r.problem } : {}),
    modification: r.modification,
    ...(r.modificationProblem ? { modification_problem: r.modificationProblem } : {}),
    trusted: r.trusted,
    trust: {
      anchor: r.trust.anchor,
      anchor_name: r.trust.anchorName,
      ...(r.trust.problem ? { problem: r.trust.problem } : {}),
      checked_at: r.trust.checkedAt.toISOString(),
      time_source: r.trust.timeSource,
    },
    valid: r.valid,
  };
}
