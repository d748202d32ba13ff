/**
 * Real tools that judge Sello's PDFs (ENGINEERING "Facts"): poppler's `pdfsig` (it exits 0 even
 * for broken signatures, so its text is read), `qpdf --check`, and `pdftoppm` + `zbarimg` to read
 * the stamp's QR back from a rendered page.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function withTempFile<T>(pdf: Buffer, fn: (file: string, dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(tmpdir(), 'sello-pdf-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    await writeFile(file, pdf);
    return await fn(file, dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface PdfsigResult {
  output: string;
  /** One entry per signature, in pdfsig's order: "Signature is Valid." or what it said instead. */
  validity: string[];
  /** Whether the last signature says "Total document signed". */
  lastCoversWholeDocument: boolean;
}

export async function pdfsig(pdf: Buffer): Promise<PdfsigResult> {
  return withTempFile(pdf, async (file) => {
    const r = await run('pdfsig', ['-nocert', file]).catch((e: { stdout?: string; stderr?: string }) => ({ stdout: e.stdout ?? '', stderr: e.stderr ?? '' }));
    const output = `${r.stdout}\n${r.stderr}`;
    const validity = [...output.matchAll(/- Signature Validation: (.*)/g)].map((m) => m[1]!.trim());
    const blocks = output.split(/^Signature #\d+:/m).slice(1);
    const lastBlock = blocks[blocks.length - 1] ?? '';
    return { output, validity, lastCoversWholeDocument: lastBlock.includes('Total document signed') };
  });
}

export interface QpdfCheck {
  ok: boolean;
  output: string;
}

/** `qpdf --check`: exit 0 and no warnings. */
export async function qpdfCheck(pdf: Buffer): Promise<QpdfCheck> {
  return withTempFile(pdf, async (file) => {
    try {
      const r = await run('qpdf', ['--check', file]);
      const output = `${r.stdout}${r.stderr}`;
      return { ok: !/WARNING/.test(output), output };
    } catch (e) {
      const err = e as { stdout?: string; stderr?: string };
      return { ok: false, output: `${err.stdout ?? ''}${err.stderr ?? ''}` };
    }
  });
}

/**
 * `qpdf --show-object=N`: object `num` as qpdf reads it (through the file's table, or through its
 * own rebuilding of a damaged one), written in qpdf's normal form; '' when qpdf cannot.
 */
export async function qpdfShowObject(pdf: Buffer, num: number): Promise<string> {
  return withTempFile(pdf, async (file) => {
    const r = await run('qpdf', [`--show-object=${num}`, file]).catch((e: { stdout?: string }) => ({ stdout: e.stdout ?? '' }));
    return r.stdout.trim();
  });
}

/** A region of the displayed page, in points from its top-left corner. */
export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Renders page `page` (1-based) as displayed (pdftoppm applies /Rotate), optionally only
 * `region`, and returns the bytes zbarimg decodes as UTF-8, or null when it finds no code.
 * `-Sbinary` gives the exact bytes but no separator between codes, so crop to one stamp.
 */
export async function readQrCode(pdf: Buffer, page: number, region?: Region, dpi = 200): Promise<string | null> {
  return withTempFile(pdf, async (file, dir) => {
    const out = path.join(dir, 'page');
    const k = dpi / 72;
    const crop = region
      ? ['-x', String(Math.floor(region.x * k)), '-y', String(Math.floor(region.y * k)), '-W', String(Math.ceil(region.width * k)), '-H', String(Math.ceil(region.height * k))]
      : [];
    await run('pdftoppm', ['-cropbox', '-r', String(dpi), '-f', String(page), '-l', String(page), ...crop, '-png', '-singlefile', file, out]);
    try {
      const r = await run('zbarimg', ['-q', '-Sbinary', '--raw', `${out}.png`], { encoding: 'buffer' });
      return r.stdout.toString('utf8').replace(/\n$/, '');
    } catch {
      return null;
    }
  });
}

/** Renders page `page` to a grayscale PGM and returns its pixels. */
export async function renderGray(pdf: Buffer, page: number, dpi = 72): Promise<{ width: number; height: number; pixels: Buffer }> {
  return withTempFile(pdf, async (file, dir) => {
    const out = path.join(dir, 'page');
    await run('pdftoppm', ['-cropbox', '-r', String(dpi), '-f', String(page), '-l', String(page), '-gray', '-singlefile', file, out]);
    const { readFile } = await import('node:fs/promises');
    const pgm = await readFile(`${out}.pgm`);
    const header = /^P5\s+(\d+)\s+(\d+)\s+(\d+)\s/.exec(pgm.toString('latin1', 0, 64));
    if (!header) throw new Error('PGM ilegible');
    const width = Number(header[1]);
    const height = Number(header[2]);
    return { width, height, pixels: pgm.subarray(header[0].length) };
  });
}

export { writeFile };
