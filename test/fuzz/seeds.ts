/**
 * The files the campaign mutates: the real-world corpus (SELLO_PDF_CORPUS, as in
 * test/corpus/) and small PDFs generated here, signed ones included. Without the corpus (a
 * user's machine) the generated ones alone keep the test meaningful.
 *
 * The generated seeds are byte-identical from run to run (pdf-lib without metadata or fonts,
 * whose resource names carry a random suffix; a fixed signing time), so that a seed and an
 * index replay the same mutant. Only the signed seeds differ, in their CMS bytes: the test
 * signer's key is made per run. Their layout, and so every offset a mutator picks, is stable.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PDFDocument, degrees, rgb } from 'pdf-lib';
import { signPdf, type CmsSigner } from '../../core/pdf/index.js';
import { SIGNING_TIME } from './protocol.js';

export interface Seed {
  name: string;
  bytes: Buffer;
  /** Holds at least one signature (/ByteRange): the ByteRange mutators apply. */
  signed: boolean;
}

export async function loadSeeds(signer: CmsSigner, corpusDir: string | undefined): Promise<Seed[]> {
  const corpus = corpusDir ? corpusSeeds(corpusDir) : [];
  return [...corpus, ...(await generatedSeeds(signer))];
}

function corpusSeeds(dir: string): Seed[] {
  const [header, ...lines] = readFileSync(path.join(dir, 'MANIFEST.tsv'), 'utf8').trim().split('\n');
  const fileCol = header!.split('\t').indexOf('file');
  const files = lines.map((l) => l.split('\t')[fileCol]!).sort();
  return files.map((file) => {
    const bytes = readFileSync(path.join(dir, file));
    return { name: file, bytes, signed: bytes.includes('/ByteRange') };
  });
}

interface PageSpec {
  size: [number, number];
  rotate?: 0 | 90 | 180 | 270;
  cropBox?: [number, number, number, number];
}

async function generate(pages: PageSpec[], objectStreams: boolean): Promise<Buffer> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  for (const spec of pages) {
    const page = doc.addPage(spec.size);
    if (spec.rotate) page.setRotation(degrees(spec.rotate));
    if (spec.cropBox) page.setCropBox(spec.cropBox[0], spec.cropBox[1], spec.cropBox[2] - spec.cropBox[0], spec.cropBox[3] - spec.cropBox[1]);
    page.drawRectangle({ x: 40, y: 40, width: 120, height: 60, color: rgb(0.1, 0.3, 0.6) });
  }
  return Buffer.from(await doc.save({ useObjectStreams: objectStreams }));
}

async function generatedSeeds(signer: CmsSigner): Promise<Seed[]> {
  const table = await generate([{ size: [595, 842] }], false);
  const objstm = await generate(
    [{ size: [595, 842] }, { size: [842, 595], rotate: 90, cropBox: [20, 20, 800, 580] }, { size: [612, 792], rotate: 270 }],
    true,
  );
  const smallPages = await generate([{ size: [200, 200] }, { size: [612, 792], rotate: 180 }], false);
  const stamp = { page: 1 as const, x: 10, y: 10, size: 's' as const, signerName: 'Semilla Firmada', qrText: 'https://sello.example/v/seed' };
  const signedTable = await signPdf(table, signer, { signingTime: SIGNING_TIME, stamp });
  const signedObjstm = await signPdf(await signPdf(objstm, signer, { signingTime: SIGNING_TIME, stamp }), signer, { signingTime: SIGNING_TIME });
  return [
    { name: 'generated-xref-table-1p.pdf', bytes: table, signed: false },
    { name: 'generated-xref-stream-objstm-3p-rotated.pdf', bytes: objstm, signed: false },
    { name: 'generated-xref-table-small-page.pdf', bytes: smallPages, signed: false },
    { name: 'generated-signed-xref-table.pdf', bytes: signedTable, signed: true },
    { name: 'generated-signed-twice-xref-stream.pdf', bytes: signedObjstm, signed: true },
  ];
}
