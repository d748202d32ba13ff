import crypto from 'node:crypto';

export interface CertificateSummary {
  /** Subject CN, or the whole subject when it has none. */
  subjectName: string;
  /** Serial number, uppercase hex as X.509 tools print it. */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 of the DER, lowercase hex. */
  fingerprint: string;
}

/** What Sello shows and stores of an X.509 certificate (DER). */
export function summarizeCertificate(der: Buffer): CertificateSummary {
  const cert = new crypto.X509Certificate(der);
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(cert.subject)?.[1];
  return {
    subjectName: cn ?? cert.subject.replace(/\n/g, ', '),
    serialNumber: cert.serialNumber.toUpperCase(),
    notBefore: new Date(cert.validFrom),
    notAfter: new Date(cert.validTo),
    fingerprint: crypto.createHash('sha256').update(der).digest('hex'),
  };
}
