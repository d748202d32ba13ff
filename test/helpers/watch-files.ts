/**
 * Shared by the watched-folder tests and benchmark: distinct small PDFs, a test certificate
 * holder for `sello certs issue-test`, and waiting on folder contents.
 */
import fs from 'node:fs';
import { PDFDocument, StandardFonts } from 'pdf-lib';

/** `n` distinct one-page PDFs (a different line of text each), about 1 KB each. */
export async function distinctPdfs(n: number, prefix = 'Factura'): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (let i = 0; i < n; i++) {
    const doc = await PDFDocument.create();
    const font = await doc.embedFont(StandardFonts.Helvetica);
    doc.addPage([595, 842]).drawText(`${prefix} ${i}`, { x: 300, y: 400, size: 10, font });
    doc.setTitle(`${prefix} ${i}`);
    out.push(Buffer.from(await doc.save()));
  }
  return out;
}

/** The `.pdf` files directly in `dir` (none when it does not exist). */
export const pdfsIn = (dir: string): string[] => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.toLowerCase().endsWith('.pdf')) : []);

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs: number, what: () => string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timeout: ${what()}`);
    await sleep(25);
  }
}
