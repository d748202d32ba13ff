import { SelloError } from '../../errors/index.js';
import { JSONAPI_MEDIA_TYPE } from '../envelopes.js';

/** Parameters JSON:API 1.1 allows on its media type. */
const allowedParams = new Set(['ext', 'profile']);

interface MediaRange {
  type: string;
  params: string[];
  q: number;
}

function parseMediaRanges(header: string): MediaRange[] {
  return header
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [type = '', ...rest] = part.split(';').map((s) => s.trim());
      const params = rest.map((p) => p.split('=')[0]!.trim().toLowerCase()).filter(Boolean);
      const qParam = rest.find((p) => p.toLowerCase().startsWith('q='));
      return { type: type.toLowerCase(), params: params.filter((p) => p !== 'q'), q: qParam ? Number(qParam.slice(2)) : 1 };
    });
}

/** 415 unless the body is `application/vnd.api+json` with at most `ext`/`profile` parameters. */
export function assertJsonApiContentType(header: string | undefined): void {
  const [range] = parseMediaRanges(header ?? '');
  if (!range || range.type !== JSONAPI_MEDIA_TYPE || range.params.some((p) => !allowedParams.has(p))) {
    throw new SelloError('unsupported_media_type', {
      detail: `El cuerpo debe enviarse con Content-Type: ${JSONAPI_MEDIA_TYPE}.`,
      detailEn: `Send the body with Content-Type: ${JSONAPI_MEDIA_TYPE}.`,
    });
  }
}

// A client sends the same Accept on every request: the last one found acceptable
// is not parsed again.
let lastAcceptable: string | undefined;

/** Whether `Accept` is absent or allows a plain JSON:API media type (CONTRACT §7). */
export function acceptsJsonApi(header: string | undefined): boolean {
  if (!header || header === lastAcceptable || header.trim() === '') return true;
  const ok = parseMediaRanges(header).some((r) => {
    if (r.q <= 0) return false;
    if (r.type === '*/*' || r.type === 'application/*') return true;
    return r.type === JSONAPI_MEDIA_TYPE && r.params.every((p) => allowedParams.has(p));
  });
  if (ok) lastAcceptable = header;
  return ok;
}

/** 406 unless `acceptsJsonApi`. */
export function assertJsonApiAcceptable(header: string | undefined): void {
  if (!acceptsJsonApi(header)) {
    throw new SelloError('not_acceptable', {
      detail: `Las respuestas son ${JSONAPI_MEDIA_TYPE}; inclúyalo en Accept.`,
      detailEn: `Responses are ${JSONAPI_MEDIA_TYPE}; include it in Accept.`,
    });
  }
}
