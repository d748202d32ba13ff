/**
 * What two independent readers say of a file Sello signed: poppler's `pdfsig` must find our
 * signature valid and covering the whole file, and `qpdf --check` must find nothing new and
 * nothing of ours (qpdf-criterion.ts). qpdf reads the input only when the output is not clean.
 *
 * Own runner instead of test/helpers/pdf-tools.ts: these need timeouts, exit statuses, and file
 * names that can be normalised across input and output.
 */
import { spawn } from 'node:child_process';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { objectsDefinedIn, objectsNamedByErrors, qpdfObjections, qpdfVerdictOf, type QpdfVerdict } from './qpdf-criterion.js';

const TOOL_TIMEOUT_MS = 60_000;

interface ToolRun {
  status: number | 'timeout';
  stdout: string;
  stderr: string;
}

/** What a tool printed is kept up to this much per stream: a damaged file can make pdfsig print 30 MB of "Syntax Error". */
const KEEP_BYTES = 256 * 1024;

function runTool(cmd: string, args: string[], cwd: string): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    const kept = { stdout: '', stderr: '' };
    const keep = (key: 'stdout' | 'stderr') => (d: Buffer) => {
      if (kept[key].length < KEEP_BYTES) kept[key] += d.toString('utf8');
    };
    child.stdout.on('data', keep('stdout'));
    child.stderr.on('data', keep('stderr'));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, TOOL_TIMEOUT_MS);
    // A tool that cannot start (not installed) is the harness's failure, not a finding.
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const cap = (t: string): string => (t.length > KEEP_BYTES ? `${t.slice(0, KEEP_BYTES)}\n[… cut]` : t);
      resolve({ status: timedOut ? 'timeout' : (code ?? 1), stdout: cap(kept.stdout), stderr: cap(kept.stderr) });
    });
  });
}

/** A signature block of pdfsig's text with our signature: valid, and over the whole file. */
export function pdfsigFindsValidSignature(text: string): boolean {
  return text
    .split(/^Signature #\d+:/m)
    .slice(1)
    .some((block) => block.includes('Signature Validation: Signature is Valid.') && block.includes('Total document signed'));
}

async function qpdf(dir: string, file: string, length: number): Promise<{ verdict: QpdfVerdict; text: string }> {
  const r = await runTool('qpdf', ['--check', file], dir);
  return { verdict: qpdfVerdictOf(r.status, r.stdout, r.stderr, file, length), text: `${r.stdout}\n${r.stderr}`.trim() };
}

/**
 * Whether qpdf reads object `n` the same from both files: its dictionary or value, and for a
 * stream its raw (still encoded) data, each as qpdf finds it — through its own rebuilding of the
 * table for a damaged input, through Sello's table for the output.
 */
async function sameObject(dir: string, a: string, b: string, n: number): Promise<boolean> {
  for (const extra of [[], ['--raw-stream-data']]) {
    const [x, y] = [await runTool('qpdf', [`--show-object=${n}`, ...extra, a], dir), await runTool('qpdf', [`--show-object=${n}`, ...extra, b], dir)];
    if (x.status === 'timeout' || y.status === 'timeout' || x.stdout !== y.stdout || (extra.length === 0 && x.stdout.trim() === '')) return false;
  }
  return true;
}

export interface Judgement {
  /** Empty when both tools accept the output. */
  problems: string[];
  pdfsigText: string;
  qpdfText: string;
}

/**
 * Runs both tools on `output` (and qpdf on `input` when needed), in `dir`, under `name`;
 * `rewritten` are the objects of the input the update rewrote (the child's word, see protocol.ts).
 */
export async function judgeSignedOutput(dir: string, name: string, input: Buffer, output: Buffer, rewritten: ReadonlySet<number>): Promise<Judgement> {
  const outFile = `${name}-output.pdf`;
  const inFile = `${name}-input.pdf`;
  await writeFile(path.join(dir, outFile), output);
  try {
    const problems: string[] = [];
    const sig = await runTool('pdfsig', ['-nocert', outFile], dir);
    if (!pdfsigFindsValidSignature(sig.stdout)) problems.push('pdfsig: no signature that is valid and covers the whole file');
    const qOut = await qpdf(dir, outFile, output.length);
    let qpdfText = qOut.text;
    if (qOut.verdict.rank > 0) {
      await writeFile(path.join(dir, inFile), input);
      const qIn = await qpdf(dir, inFile, input.length);
      const updateObjects = objectsDefinedIn(output.subarray(input.length));
      // Only when the output's status is worse: are the objects its errors name the input's own?
      const sameAsInput = new Set<number>();
      if (qIn.verdict.opened && qOut.verdict.rank > qIn.verdict.rank) {
        for (const n of objectsNamedByErrors(qOut.verdict)) if (!updateObjects.has(n) && (await sameObject(dir, inFile, outFile, n))) sameAsInput.add(n);
      }
      problems.push(...qpdfObjections(qIn.verdict, qOut.verdict, { inputLength: input.length, updateObjects, rewritten, sameAsInput }));
      qpdfText = `output:\n${qOut.text}\n\ninput:\n${qIn.text}`;
    }
    return { problems, pdfsigText: `${sig.stdout}\n${sig.stderr}`.trim(), qpdfText };
  } finally {
    await rm(path.join(dir, outFile), { force: true });
    await rm(path.join(dir, inFile), { force: true });
  }
}
