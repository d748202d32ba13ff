/**
 * What decides whether a purchase can be withheld as asked (CONTRACT §15 `POST
 * /api/v1/purchases/:id/withhold`), and the comprobante de retención that results. Every refusal
 * names its field; the route answers them as 422 `withholding_failed`.
 *
 * - Date: the withholding is issued within five days of the purchase's issue date (Ley de
 *   Régimen Tributario Interno, art. 50), never before it, and the SRI's own date rule holds
 *   (not in the future, at most 72 hours old: issueDateError).
 * - Codes: IVA and ISD codes fix their rate (the SRI's table of retention percentages: IVA 9 →
 *   10 %, 10 → 20 %, 1 → 30 %, 11 → 50 %, 2 → 70 %, 3 → 100 %, 7 and 8 → 0 %; ISD 4580 → 5 %); the
 *   income-tax codes are many and their rates change by resolution, so a renta code is checked
 *   by its form (3xx local, 4xx and 5xx payments abroad, optionally a letter suffix: "312",
 *   "3440", "343A") and its rate is the caller's, between 0 and 100.
 * - Bases: renta's is at most the purchase's subtotal, IVA's at most the purchase's IVA, ISD's
 *   at most its total; never zero.
 * - Once: a tax and code is withheld once per purchase, across the withholdings already issued
 *   for it that were not rejected or failed.
 */
import { daysBetween, issueDateError, type FieldError } from './compute-invoice.js';
import { formatUnits, normalize, percentOf, toUnits } from './decimal.js';
import type { ReceivedPurchase } from './purchase-model.js';
import type { WithholdingBody } from './withholding-body.js';
import type { ComputedWithholding, WithheldTax, WithholdingLine } from './withholding-model.js';

/** Days after the purchase's issue date within which the withholding is issued. */
export const WITHHOLDING_DAYS = 5;

/** Rate in percent of each IVA withholding code (the SRI's table of IVA retention percentages). */
export const IVA_WITHHOLDING_RATES: Readonly<Record<string, string>> = { '9': '10', '10': '20', '1': '30', '11': '50', '2': '70', '3': '100', '7': '0', '8': '0' };

/** Rate in percent of each ISD withholding code. */
export const ISD_WITHHOLDING_RATES: Readonly<Record<string, string>> = { '4580': '5' };

const RENTA_CODE = /^[345]\d{2}[0-9A-Z]{0,2}$/;

const TAX_NAME: Record<WithheldTax, string> = { renta: 'la renta', iva: 'el IVA', isd: 'el ISD' };
const OF_TAX: Record<WithheldTax, string> = { renta: 'de la renta', iva: 'del IVA', isd: 'del ISD' };

/** A withholding already issued for the purchase (not rejected or failed). */
export interface PriorWithholding {
  numero: string;
  lines: Array<Pick<WithholdingLine, 'tax' | 'code'>>;
}

export interface WithholdingInput {
  body: WithholdingBody;
  /** The issuer's contribuyente especial number, when it has one (this XSD admits 3 to 5 characters). */
  contribuyenteEspecial?: string | undefined;
  purchaseId: string;
  purchase: ReceivedPurchase;
  establishment: string;
  emissionPoint: string;
  prior: PriorWithholding[];
  now: Date;
}

const cents = (text: string) => toUnits(text, 2);
const money = (units: bigint) => formatUnits(units, 2);

/** Why `code` is not a withholding code of `tax`, or the rate it fixes ('' when the caller's rate stands). */
function codeRate(tax: WithheldTax, code: string): { rate: string } | { unknown: string } {
  if (tax === 'iva') {
    const rate = IVA_WITHHOLDING_RATES[code];
    return rate !== undefined ? { rate } : { unknown: `no es un código de retención del IVA (9 → 10 %, 10 → 20 %, 1 → 30 %, 11 → 50 %, 2 → 70 %, 3 → 100 %, 7 y 8 → 0 %)` };
  }
  if (tax === 'isd') {
    const rate = ISD_WITHHOLDING_RATES[code];
    return rate !== undefined ? { rate } : { unknown: 'no es un código de retención del ISD (4580 → 5 %)' };
  }
  return RENTA_CODE.test(code) ? { rate: '' } : { unknown: 'no es un código de retención de la renta: son de la forma 3xx (pagos locales, por ejemplo "312" o "3440") o 4xx/5xx (pagos al exterior)' };
}

/** The most each tax's base may be, from the purchase. */
function baseLimit(tax: WithheldTax, purchase: ReceivedPurchase): { cents: bigint; what: string } {
  if (tax === 'renta') return { cents: cents(purchase.totalWithoutTaxes), what: `el subtotal de la factura (${purchase.totalWithoutTaxes})` };
  if (tax === 'iva') {
    const iva = purchase.taxes.filter((t) => t.codigo === '2').reduce((sum, t) => sum + cents(t.valor), 0n);
    return { cents: iva, what: `el IVA de la factura (${money(iva)})` };
  }
  return { cents: cents(purchase.grandTotal), what: `el total de la factura (${purchase.grandTotal})` };
}

function dateErrors(body: WithholdingBody, purchase: ReceivedPurchase, now: Date): FieldError[] {
  const days = daysBetween(purchase.issueDate, body.issue_date);
  if (days < 0) return [{ path: 'issue_date', message: `es anterior a la factura que retiene (${purchase.numero}, del ${purchase.issueDate})` }];
  if (days > WITHHOLDING_DAYS) {
    return [{ path: 'issue_date', message: `está ${days} días después de la factura ${purchase.numero} (del ${purchase.issueDate}): la retención se emite dentro de los ${WITHHOLDING_DAYS} días siguientes a la emisión del comprobante de venta` }];
  }
  const late = issueDateError(body.issue_date, now);
  return late ? [{ path: 'issue_date', message: late }] : [];
}

/**
 * The comprobante de retención `input.body` asks for, or every reason it cannot be issued.
 *
 * @example
 *   const result = computeWithholding({ body, purchaseId, purchase, establishment: '001', emissionPoint: '001', prior: [], now: new Date() });
 *   if ('errors' in result) throw new SelloError('withholding_failed', { fields: errorFields(result.errors) });
 */
export function computeWithholding(input: WithholdingInput): { ok: ComputedWithholding } | { errors: FieldError[] } {
  const { body, purchase } = input;
  const errors = dateErrors(body, purchase, input.now);
  const especial = input.contribuyenteEspecial;
  if (especial !== undefined && (especial.length < 3 || especial.length > 5)) {
    errors.push({ path: 'issuer.contribuyente_especial', message: `el número de contribuyente especial del emisor (${especial}) no cabe en el comprobante de retención del SRI, que admite de 3 a 5 caracteres; corríjalo con PUT /api/v1/issuer` });
  }
  const seen = new Map<string, number>();
  const lines: WithholdingLine[] = [];
  body.lines.forEach((line, i) => {
    const at = `lines[${i}]`;
    const code = line.code;
    const known = codeRate(line.tax, code);
    if ('unknown' in known) {
      errors.push({ path: `${at}.code`, message: `${code} ${known.unknown}` });
      return;
    }
    const rate = normalize(line.rate);
    if (known.rate !== '' && cents(rate) !== cents(known.rate)) {
      errors.push({ path: `${at}.rate`, message: `el código ${code} retiene el ${known.rate} % del ${line.tax === 'iva' ? 'IVA' : 'ISD'}, no el ${rate} %` });
    } else if (cents(rate) > 10000n) {
      errors.push({ path: `${at}.rate`, message: 'un porcentaje de retención no pasa de 100' });
    } else if (rate.replace('.', '').replace(/^0+(?=\d)/, '').length > 3) {
      // The XSD's porcentajeRetener: three digits in all, two of them decimals at most.
      errors.push({ path: `${at}.rate`, message: `${rate} tiene más de tres cifras: el SRI admite porcentajes como "1.75", "2.5", "10" o "100"` });
    }
    const base = cents(line.base);
    const limit = baseLimit(line.tax, purchase);
    if (base === 0n) errors.push({ path: `${at}.base`, message: 'debe ser mayor que cero' });
    else if (base > limit.cents) errors.push({ path: `${at}.base`, message: `${line.base} supera ${limit.what}, la base más alta de una retención ${OF_TAX[line.tax]}` });

    const key = `${line.tax}:${code}`;
    const twice = seen.get(key);
    if (twice !== undefined) errors.push({ path: `${at}.code`, message: `repite la retención de ${TAX_NAME[line.tax]} con código ${code} de lines[${twice}]` });
    seen.set(key, i);
    const earlier = input.prior.find((p) => p.lines.some((l) => l.tax === line.tax && l.code === code));
    if (earlier) {
      errors.push({ path: `${at}.code`, message: `a la factura ${purchase.numero} ya se le retuvo ${TAX_NAME[line.tax]} con código ${code} en el comprobante de retención ${earlier.numero}` });
    }
    lines.push({ tax: line.tax, code, base: money(base), rate, amount: money(percentOf(base, rate)) });
  });
  if (body.payments) {
    const paid = body.payments.reduce((sum, p) => sum + cents(p.amount), 0n);
    if (paid !== cents(purchase.grandTotal)) errors.push({ path: 'payments', message: `suman ${money(paid)} y la factura ${purchase.numero} es de ${purchase.grandTotal}: los pagos del documento sustento suman su total` });
  }
  if (errors.length > 0) return { errors };

  const payments = body.payments ?? (purchase.payments.length > 0 ? purchase.payments : [{ method: '20', amount: purchase.grandTotal }]);
  const [year, month] = body.issue_date.split('-');
  return {
    ok: {
      issueDate: body.issue_date,
      establishment: input.establishment,
      emissionPoint: input.emissionPoint,
      currency: 'USD',
      fiscalPeriod: `${month}/${year}`,
      subject: { name: purchase.supplier.name, taxId: purchase.supplier.ruc, idType: 'ec-ruc', idTypeCode: '04', relatedParty: body.related_party ?? false },
      support: {
        purchaseId: input.purchaseId,
        supportCode: body.support_code ?? '01',
        codDoc: purchase.codDoc,
        numero: purchase.numero,
        issueDate: purchase.issueDate,
        authorizationNumber: purchase.accessKey,
        paymentLocation: '01',
        totalWithoutTaxes: purchase.totalWithoutTaxes,
        grandTotal: purchase.grandTotal,
        taxes: purchase.taxes,
        payments: payments.map((p) => ({ method: p.method, amount: p.amount })),
      },
      lines,
      totalWithheld: money(lines.reduce((sum, l) => sum + cents(l.amount), 0n)),
      additionalInfo: body.additional_info ?? [],
    },
  };
}
