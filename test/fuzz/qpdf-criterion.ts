/**
 * When is `qpdf --check` on a signed mutant acceptable? Not "clean": a mutant is usually damaged
 * in its original part, and an incremental update (ISO 32000-1 §7.5.6) leaves those bytes as
 * they were, at the same offsets. What Sello adds must be sound, so the criterion is "nothing
 * new, nothing of ours":
 *
 * 1. A clean input gives a clean output.
 * 2. The output opens in qpdf (it gets as far as the version line) — unless the input does not
 *    open either and the output fails the same way: the same fatal message, and no problem that
 *    the input's report lacks. qpdf then stops in the original's bytes (an object number it
 *    cannot convert, a table it misreads) before it gets to anything Sello wrote; pdfsig, judged
 *    separately, must still find the signature valid.
 * 3. When both open, qpdf's exit status for the output is no worse than for the input (0 clean
 *    < 3 warnings < 2 errors), with one exception that is checked, not assumed: every ERROR line
 *    of the output names an object of the original that qpdf reads byte for byte the same from
 *    the input and from the output (`sameAsInput`, established by the harness with
 *    `qpdf --show-object`). qpdf's own rebuilding of a damaged table (QPDF::reconstruct_xref)
 *    never looks inside object streams, so on the input it can miss a page tree that lives in
 *    one and never check the pages; the complete table Sello writes after its own rebuilding
 *    lets qpdf reach them, and with them the original's damage (a content stream whose deflate
 *    data a bit flip broke). The object being identical in both files is what makes that damage
 *    the original's and not a different definition of Sello's choosing.
 * 4. Every problem qpdf reports for the output is either reported for the input too, or is about
 *    the original bytes, which means all of:
 *    - not about the file's structure (xref, trailer, startxref, damage and reconstruction, an
 *      object that is not where the xref says, an object stream that is not one): such messages
 *      would mean that the cross-reference section Sello wrote is wrong — with one exception:
 *      "supposed object stream N is not a stream" for an N the update does not write, when qpdf
 *      said the same of N in the input. The input's xref names N as an object stream, and
 *      an update with /Prev inherits that entry (after a reconstruction, the read-back refuses a
 *      complete table naming what Sello cannot read as an object stream); qpdf only meets it
 *      while resolving another object, because the update rewrote the page that leads there;
 *    - not about an object the update writes, with one exception: qpdf's complaint that the
 *      page tree names as a page something that is not one ("/Type key should be /Page but is
 *      not; overriding", "operation for dictionary attempted on object of type array") is about
 *      the original's /Kids, not about the object; it is excused for an object the update
 *      rewrote (the original defined it: say a page's /Annots array that a spliced /Kids also
 *      names) when qpdf said the same of that object in the input. For an object the update
 *      made, never: the original naming it at all would be a number Sello took from a dangling
 *      reference;
 *    - at an offset inside the original, or, past the original's end, only where the original
 *      itself ends inside an object:
 *      a. a stream of the original whose /Length points past the original's end: qpdf looks for
 *         `endstream` there (inside the update now, at the original's end before) and recovers
 *         the length by scanning; excused when the recovered stream ends inside the original —
 *         the data read is then the original's bytes and nothing of the update;
 *      b. any other object of the original that qpdf reads on into the update (an unterminated
 *         string, array or dictionary, or a stream whose data has no end in the original: no
 *         appended byte can leave its reading unchanged, and it had no sound reading before):
 *         excused when qpdf also reported a problem for that object in the input — the lead's
 *         condition, which also catches Sello's table picking a definition of a number that
 *         qpdf reads fine in the input — or when qpdf could not open the input at all, so that
 *         there is nothing to compare with (the object is not one the update writes, and an
 *         entry pointing elsewhere than its definition would be a structural message).
 *
 * Rule 4's "inside the original" matters for inputs qpdf cannot open ("unable to find trailer
 * dictionary" for a file of xref streams, "integer out of range") while Sello, reading them
 * differently, can: qpdf then meets the original's damaged objects (content streams, loops in
 * /Length, fake keys) only in the output.
 */

export interface QpdfVerdict {
  /** 0 clean, 1 warnings, 2 errors, 3 did not finish. */
  rank: number;
  opened: boolean;
  /** WARNING and error lines, the file's name replaced by FILE. */
  problems: string[];
}

/** What the harness knows of the output beyond qpdf's text. */
export interface OutputFacts {
  inputLength: number;
  /** Object numbers the update defines. */
  updateObjects: ReadonlySet<number>;
  /** Those of them the input already defined (as Sello read it): objects rewritten, not made. */
  rewritten: ReadonlySet<number>;
  /** Objects of the original qpdf reads identically from the input and the output (rule 3). */
  sameAsInput: ReadonlySet<number>;
}

/** Lines of qpdf's that say nothing is wrong. */
const INFORMATIONAL = /operation succeeded with warnings|No syntax or stream encoding errors found|errors that qpdf cannot detect/;

/** Messages about the file's structure: never excused by where they are. */
const STRUCTURAL = /xref|trailer|startxref|damaged|reconstruct|expected \d+ \d+ obj|supposed object stream|object stream \d+ has|object stream header/i;

const RANKS = ['clean', 'warnings', 'errors', 'timeout'] as const;

/** Reads `qpdf --check`'s exit status and text for `file` of `fileLength` bytes. */
export function qpdfVerdictOf(status: number | 'timeout', stdout: string, stderr: string, file: string, fileLength: number): QpdfVerdict {
  const rank = status === 0 ? 0 : status === 3 ? 1 : status === 2 ? 2 : 3;
  const problems = `${stdout}\n${stderr}`
    .split('\n')
    .filter((l) => /WARNING|ERROR|error|qpdf:/.test(l) && !INFORMATIONAL.test(l))
    // The same message says "xref stream: object 7 0" or "object 7 0" depending on how qpdf
    // reached the object, and names the end of the file (where a /Length too large leads) by
    // its offset: only what it says about the object matters.
    .map((l) => l.split(file).join('FILE').replace('(xref stream: ', '(').replace(`offset ${fileLength})`, 'offset EOF)').trim());
  return { rank: rank === 0 && problems.length > 0 ? 1 : rank, opened: /PDF Version:/.test(stdout), problems };
}

/** The object a message is about, and the file offset it names, when it names them. */
function subjectOf(line: string): { object: number | null; offset: number | null } {
  // "page object 7 0: …" is about the page's content, which the update copies as it was.
  if (/(?:^|\s)page object \d+ \d+:/.test(line)) return { object: null, offset: null };
  // Offsets inside a content stream or an object stream count from the start of its decoded data.
  const content = /stream (\d+) \d+ \(content, offset \d+\)/.exec(line) ?? /content stream object (\d+) \d+\)/.exec(line);
  if (content) return { object: Number(content[1]), offset: null };
  const compressed = /object stream \d+ \(object (\d+) \d+, offset \d+\)/.exec(line);
  if (compressed) return { object: Number(compressed[1]), offset: null };
  // "offset EOF": the end of that file (normalised above), past the original's end in an output.
  const located = /object (\d+) \d+, offset (\d+|EOF)\)/.exec(line);
  if (located) return { object: Number(located[1]), offset: located[2] === 'EOF' ? Number.POSITIVE_INFINITY : Number(located[2]) };
  const decoding = /\(offset (\d+)\): error decoding stream data for object (\d+) \d+/.exec(line);
  if (decoding) return { object: Number(decoding[2]), offset: Number(decoding[1]) };
  const object = /(?:^|\s)object (\d+) \d+(?::| at offset)/.exec(line);
  const offset = /\(offset (\d+)\)|at offset (\d+)/.exec(line);
  return { object: object ? Number(object[1]) : null, offset: offset ? Number(offset[1] ?? offset[2]) : null };
}

/** The line that ends qpdf's run when it could not open a file. */
function fatalOf(v: QpdfVerdict): string | undefined {
  return v.problems.find((p) => p.startsWith('qpdf:'));
}

/** Objects named by the ERROR lines of `v`: what rule 3's exception needs checked. */
export function objectsNamedByErrors(v: QpdfVerdict): number[] {
  const out = new Set<number>();
  for (const p of v.problems) {
    if (!p.startsWith('ERROR')) continue;
    const { object } = subjectOf(p);
    if (object !== null) out.add(object);
  }
  return [...out];
}

/** For each stream qpdf recovered the length of, where the recovered data ends. */
function recoveredStreamEnds(problems: string[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const p of problems) {
    const m = /\(object (\d+) \d+, offset (\d+)\): recovered stream length: (\d+)/.exec(p);
    if (m) out.set(Number(m[1]), Number(m[2]) + Number(m[3]));
  }
  return out;
}

/** qpdf's words for a page-tree node that is not a page (QPDF::getAllPages and the checks after it). */
const NOT_A_PAGE = /\/Type key should be \/Page but is not; overriding|operation for dictionary attempted on object of type \w+/;

/** What rule 4 compares with the input's report. */
interface InputFacts {
  /** Objects qpdf reported any problem for. */
  damaged: Set<number>;
  /** Objects qpdf said the page tree names as pages although they are not. */
  notPages: Set<number>;
  /** Object numbers qpdf said the xref names as an object stream although they are not one. */
  notObjectStreams: Set<number>;
}

const NOT_AN_OBJECT_STREAM = /supposed object stream (\d+) is not a stream/;

function inputFacts(input: QpdfVerdict): InputFacts {
  const out: InputFacts = { damaged: new Set(), notPages: new Set(), notObjectStreams: new Set() };
  for (const p of input.problems) {
    const stream = NOT_AN_OBJECT_STREAM.exec(p);
    if (stream) out.notObjectStreams.add(Number(stream[1]));
    const { object } = subjectOf(p);
    if (object === null) continue;
    out.damaged.add(object);
    if (/\/Type key should be \/Page but is not/.test(p)) out.notPages.add(object);
  }
  return out;
}

/** Why a problem line is not excused; null when it is about the original bytes (rule 4). */
function blame(line: string, input: QpdfVerdict, facts: OutputFacts, recovered: Map<number, number>, inherited: InputFacts): string | null {
  // The original's xref naming as an object stream something that is not one, met while qpdf
  // resolves some other object than in the input (the page tree now reaches it from an object
  // the update rewrote): the same fact about the same original object, excused as rule 4's
  // exception says.
  const stream = NOT_AN_OBJECT_STREAM.exec(line);
  if (stream && !facts.updateObjects.has(Number(stream[1])) && inherited.notObjectStreams.has(Number(stream[1]))) return null;
  if (STRUCTURAL.test(line)) return 'the file structure (xref, trailer) is wrong';
  const { object, offset } = subjectOf(line);
  if (object !== null && facts.updateObjects.has(object)) {
    const usedAsPage = NOT_A_PAGE.test(line) && facts.rewritten.has(object) && inherited.notPages.has(object);
    return usedAsPage ? null : 'an object Sello wrote is wrong';
  }
  if (offset === null || offset < facts.inputLength) return null;
  // Past the original's end: only where the original ends inside one of its own objects.
  if (object === null) return 'qpdf reads the update as part of something of the original';
  if (/expected endstream/.test(line)) {
    const end = recovered.get(object);
    if (end !== undefined && end <= facts.inputLength) return null;
    // The data has no end in the original either: rule 4b.
    return !input.opened || inherited.damaged.has(object) ? null : 'a stream of the original takes in bytes of the update';
  }
  if (!input.opened || inherited.damaged.has(object)) return null;
  return 'an object of the original runs on into the update, and qpdf read it without a problem in the input';
}

/**
 * Rule 3's exception: warnings for the input, errors for the output, and each ERROR line about
 * an object of the original that qpdf reads byte for byte the same from both files.
 */
function worseOnlyByOriginalErrors(input: QpdfVerdict, output: QpdfVerdict, facts: OutputFacts): boolean {
  if (input.rank !== 1 || output.rank !== 2) return false;
  return output.problems
    .filter((p) => p.startsWith('ERROR'))
    .every((p) => {
      const { object } = subjectOf(p);
      return object !== null && !facts.updateObjects.has(object) && facts.sameAsInput.has(object);
    });
}

/** Why qpdf's verdict on the output is not acceptable (a headline, then the lines); empty when it is. */
export function qpdfObjections(input: QpdfVerdict, output: QpdfVerdict, facts: OutputFacts): string[] {
  if (output.rank === 0) return [];
  if (!output.opened) {
    const fatal = fatalOf(output);
    const known = new Set(input.problems);
    const failsAlike = !input.opened && fatal !== undefined && fatal === fatalOf(input) && output.problems.every((p) => known.has(p));
    return failsAlike ? [] : ['qpdf cannot open the output', ...output.problems];
  }
  const reasons = new Set<string>();
  const worseLines: string[] = [];
  if (input.opened && output.rank > input.rank && !worseOnlyByOriginalErrors(input, output, facts)) {
    reasons.add(`${RANKS[output.rank]} for the output, ${RANKS[input.rank]} for the input`);
    worseLines.push(...output.problems.filter((p) => p.startsWith('ERROR')));
  }
  const known = new Set(input.problems);
  const recovered = recoveredStreamEnds(output.problems);
  const inherited = inputFacts(input);
  const lines = output.problems.filter((p) => {
    const why = known.has(p) ? null : blame(p, input, facts, recovered, inherited);
    if (why) reasons.add(why);
    return why !== null;
  });
  return reasons.size > 0 ? [`qpdf --check: ${[...reasons].join('; ')}`, ...new Set([...worseLines, ...lines])] : [];
}

/** The object numbers an incremental update defines. */
export function objectsDefinedIn(update: Buffer): Set<number> {
  return new Set([...update.toString('latin1').matchAll(/(?:^|[\r\n])(\d+)\s+\d+\s+obj\b/g)].map((m) => Number(m[1])));
}
