/**
 * The text of the stamp's QR code (CONTRACT §12): signer, time, certificate serial
 * and, where the office publishes Sello, the `/v/{id}` URL. One `LABEL: value` per
 * line, in the spirit of FirmaEC's QR, so a phone shows it readably.
 */
export interface QrFacts {
  signerName: string;
  signedAt: Date;
  serialNumber: string;
  /** Absolute URL of the verification, when a public base URL is configured. */
  verifyUrl?: string;
}

export function qrText(facts: QrFacts): string {
  const lines = [
    `FIRMADO POR: ${facts.signerName}`,
    // To the second, as the signature's own time (/M and the CMS signing time).
    `FECHA: ${facts.signedAt.toISOString().replace(/\.\d{3}Z$/, 'Z')}`,
    `CERTIFICADO: ${facts.serialNumber}`,
  ];
  if (facts.verifyUrl) lines.push(`VERIFICAR: ${facts.verifyUrl}`);
  return lines.join('\n');
}
