/**
 * The bounds on a received purchase's XML (CONTRACT §15 `POST /api/v1/purchases`), apart from
 * its reader (./read-purchase.ts) so that the agent's own thread (soap-client.ts) can refuse an
 * oversized text without loading the XML parser and verifier, which stay on the answer thread.
 */

/**
 * The SRI's own authorization answers are capped at the same size (soap-client.ts): a
 * comprobante the SRI accepts is a few hundred KB, its `autorizacion` not much more.
 */
export const MAX_PURCHASE_BYTES = 2 * 1024 * 1024;
/** `detalles/detalle`: a 2,000-line factura is about 2 MB with its signature. */
export const MAX_PURCHASE_LINES = 2_000;
/** `totalConImpuestos/totalImpuesto`: one per tax and rate; a real factura has a handful. */
export const MAX_PURCHASE_TAXES = 100;

/** Why the text of a purchase cannot be recorded: a Spanish sentence for the person who sent it. */
export class PurchaseRefused extends Error {
  override name = 'PurchaseRefused';
}

/**
 * The refusal of a text over MAX_PURCHASE_BYTES (as UTF-8), or undefined. Costs at most one pass
 * over a text of the limit's size: a longer one is refused by its length alone.
 *
 * @example purchaseSizeRefusal('x'.repeat(3 * 1024 * 1024)) // 'El XML pesa al menos 3 MB; …'
 */
export function purchaseSizeRefusal(text: string): string | undefined {
  // A UTF-16 code unit is at least one UTF-8 byte, so a text this long is too large whatever it holds.
  const byLength = text.length > MAX_PURCHASE_BYTES;
  const bytes = byLength ? text.length : Buffer.byteLength(text, 'utf8');
  if (bytes <= MAX_PURCHASE_BYTES) return undefined;
  // Rounded so that the size said is true: down for a lower bound, up for an exact count over the limit.
  const round = byLength ? Math.floor : Math.ceil;
  const mb = (n: number): string => String(round((n / 1024 / 1024) * 100) / 100).replace('.', ',');
  return `El XML pesa ${byLength ? 'al menos ' : ''}${mb(bytes)} MB; Sello admite hasta ${mb(MAX_PURCHASE_BYTES)} MB para una compra.`;
}
