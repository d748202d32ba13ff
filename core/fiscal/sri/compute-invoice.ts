/**
 * From a valid `POST /api/v1/invoices` body to the invoice Sello issues (CONTRACT §15): the
 * catalog checks, the customer's id, the issue date, and every amount, exactly (bigint cents,
 * never floats) and rounded half-up to the cent as the SRI does.
 *
 * The arithmetic, per line:
 * - subtotal (`precioTotalSinImpuesto`) = quantity × unit_price − discount, rounded half-up to
 *   the cent; a discount above quantity × unit_price is refused;
 * - ICE first (the spec): rate % × subtotal, rounded, + specific_amount (invoice-body.ts);
 * - VAT on subtotal + ICE, at the catalog type's rate (codigoPorcentaje 0 → 0 %, 2 → 12, 3 → 14,
 *   4 → 15, 5 → 5, 6 no objeto and 7 exento → 0, 8 → 8, 10 → 13), rounded per line;
 * - exactly one VAT type on every line, even at 0 % (the spec), and at most one ICE.
 * Totals: one `totalImpuesto` per tax type and rate, summing the lines' bases and values (the
 * lines' rounded values, so that the printed lines add up to the printed totals); grand total =
 * subtotals + taxes + tip (always 0.00: the body has none). A stated `grand_total`, or payments
 * whose sum differs from the grand total, are refused naming that field.
 *
 * The issue date: not after today in Ecuador (UTC−5, no daylight saving), and not more than
 * `MAX_ISSUE_AGE_DAYS` (3) days before it. The SRI answers a late document with error 65 ("fecha de
 * emisión extemporánea"): since Resolución NAC-DGERCGC22-00000064 (Dec. 2022, amending art. 7 of
 * NAC-DGERCGC18-00000233), a comprobante must reach the SRI when it is generated or within 72
 * hours. A document dated three days ago may still be inside those hours; an older one never is.
 */
import type { IdentificationType, TaxType } from '../../catalogs/index.js';
import { fieldMessages } from '../../errors/index.js';
import { formatUnits, normalize, percentOf, roundHalfUp, toUnits } from './decimal.js';
import { checkCustomerId, sriBuyerIdCode } from './identification.js';
import type { InvoiceBody, SaleBody } from './invoice-body.js';
import type { ComputedInvoice, ComputedLine, Issuer, Payment, TaxAmount } from './invoice-model.js';

/** The catalogs the computation reads (core/catalogs: `{identificationTypes, taxTypes}`). */
export interface InvoiceCatalogs {
  identificationTypes: readonly IdentificationType[];
  taxTypes: readonly TaxType[];
}

/** One refusal, by field path of the body (`lines[0].unit_price`), in Spanish. */
export interface FieldError {
  path: string;
  message: string;
}

export type ComputeResult = { ok: ComputedInvoice; warnings: FieldError[] } | { errors: FieldError[] };

/**
 * Refusals as the fiscal envelope's `errors` (messages by field path).
 *
 * @example errorFields([{ path: 'grand_total', message: 'no coincide…' }]) // { grand_total: ['no coincide…'] }
 */
export function errorFields(errors: readonly FieldError[]): Record<string, string[]> {
  const fields = fieldMessages();
  for (const e of errors) (fields[e.path] ??= []).push(e.message);
  return fields;
}

/** VAT rate in percent by SRI codigoPorcentaje (fiscal README; datil/api-docs codes.md). */
export const IVA_RATES: Readonly<Record<string, string>> = { '0': '0', '2': '12', '3': '14', '4': '15', '5': '5', '6': '0', '7': '0', '8': '8', '10': '13' };

/** How many days before today (Ecuador) an issue date may be (module header). */
export const MAX_ISSUE_AGE_DAYS = 3;

/** The XSD's campoAdicional maxOccurs. */
export const MAX_ADDITIONAL_FIELDS = 15;

/** The SRI's impuesto `codigo` by catalog group. */
const TAX_CODE: Readonly<Record<string, string>> = { iva: '2', ice: '3' };

/** Amounts have at most 14 digits, 2 of them decimals (the XSD's totalDigits). */
const MAX_CENTS = 10n ** 14n;

const DAY_MS = 86_400_000;
const ECUADOR_OFFSET_MS = 5 * 3_600_000;

/**
 * The date in Ecuador (UTC−5, no daylight saving) at `now`.
 *
 * @example ecuadorDate(new Date('2026-03-01T03:00:00Z')) // '2026-02-28'
 */
export function ecuadorDate(now: Date): string {
  return new Date(now.getTime() - ECUADOR_OFFSET_MS).toISOString().slice(0, 10);
}

/** Whole days from one YYYY-MM-DD to another (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

const cents = (text: string) => toUnits(text, 2);
const money = (units: bigint) => formatUnits(units, 2);

/**
 * Computes the invoice of `body` (already valid against `invoiceBodySchema`), or every refusal by
 * field path. `warnings` name what was accepted leniently (a company RUC whose check digit could
 * not be verified, identification.ts).
 *
 * @example
 *   const result = computeInvoice(body, { identificationTypes, taxTypes }, new Date());
 *   if ('errors' in result) throw new SelloError('validation_failed', { fields: errorFields(result.errors) });
 *   result.ok.grandTotal // "115.00"
 */
export function computeInvoice(body: InvoiceBody, catalogs: InvoiceCatalogs, now: Date): ComputeResult {
  return computeSale(body, catalogs, now, 'la factura');
}

/**
 * Why the SRI would refuse a comprobante dated `issueDate` (Ecuador's calendar): a future date, or
 * one more than MAX_ISSUE_AGE_DAYS old (error 65); undefined when it may be sent.
 */
export function issueDateError(issueDate: string, now: Date): string | undefined {
  const today = ecuadorDate(now);
  const age = daysBetween(issueDate, today);
  if (age < 0) return `es posterior a hoy en Ecuador (${today}): el SRI no admite comprobantes con fecha futura`;
  if (age > MAX_ISSUE_AGE_DAYS) {
    return `tiene ${age} días (hoy en Ecuador es ${today}): el SRI solo recibe un comprobante hasta 72 horas después de emitido (error 65, fecha de emisión extemporánea); emítalo con la fecha de hoy`;
  }
  return undefined;
}

/**
 * `computeInvoice` for any document with an invoice's lines (a credit note: no payments, whose
 * check is skipped when `body.payments` is absent). `document` names it in messages.
 */
export function computeSale(body: SaleBody, catalogs: InvoiceCatalogs, now: Date, document: string): ComputeResult {
  const errors: FieldError[] = [];
  const warnings: FieldError[] = [];
  const fail = (path: string, message: string) => errors.push({ path, message });

  const late = issueDateError(body.issue_date, now);
  if (late) fail('issue_date', late);

  // The customer: a (type, code) pair of the catalog, of Ecuador, and an id that fits the type.
  const { tax_id_type: idType } = body.customer;
  const catalogId = catalogs.identificationTypes.find((t) => t.code === idType.type);
  let idTypeCode: string | undefined;
  if (!catalogId) {
    fail('customer.tax_id_type.type', `${idType.type} no es un tipo de identificación del catálogo (GET /api/v1/identification-types)`);
  } else if (catalogId.country !== 'EC' || !sriBuyerIdCode(catalogId.code)) {
    fail('customer.tax_id_type.type', `${idType.type} no es un tipo de identificación de comprador de Ecuador`);
  } else if (catalogId.authority_code !== idType.code) {
    fail('customer.tax_id_type.code', `el código de ${catalogId.code} en el catálogo es ${catalogId.authority_code}, no ${idType.code}`);
  } else {
    idTypeCode = sriBuyerIdCode(catalogId.code);
    const check = checkCustomerId(catalogId.code, body.customer.tax_id);
    if (!check.ok) fail('customer.tax_id', check.message);
    else if (check.note) warnings.push({ path: 'customer.tax_id', message: check.note });
  }

  // The lines.
  const lines: ComputedLine[] = [];
  body.lines.forEach((line, i) => {
    const at = `lines[${i}]`;
    const gross = roundHalfUp(toUnits(line.quantity, 6) * toUnits(line.unit_price, 6), 12, 2);
    const discount = cents(line.discount);
    if (discount > gross) fail(`${at}.discount`, `es mayor que cantidad × precio unitario (${money(gross)})`);
    const subtotal = gross - discount;

    let iva: { tax: TaxType; j: number } | undefined;
    const ices: Array<{ tax: TaxType; j: number }> = [];
    let lineOk = discount <= gross;
    let ivaNamed = false;
    let unknownTax = false;
    for (const [j, t] of line.taxes.entries()) {
      const tat = `${at}.taxes[${j}]`;
      const tax = catalogs.taxTypes.find((c) => c.code === t.type);
      if (!tax || tax.country !== 'EC' || !TAX_CODE[tax.group]) {
        lineOk = false;
        unknownTax = true;
        fail(`${tat}.type`, tax
          ? `${t.type} no es un impuesto de las facturas de Ecuador (IVA o ICE)`
          : `${t.type} no es un tipo de impuesto del catálogo (GET /api/v1/tax-types), por ejemplo ec-iva-15`);
        continue;
      }
      if (tax.group === 'iva') {
        ivaNamed = true;
        if (t.rate !== undefined) fail(`${tat}.rate`, 'solo se admite en impuestos ICE: la tarifa del IVA la da su tipo');
        if (t.specific_amount !== undefined) fail(`${tat}.specific_amount`, 'solo se admite en impuestos ICE');
        if (IVA_RATES[tax.authority_code] === undefined) {
          lineOk = false;
          fail(`${tat}.type`, `${t.type} no tiene una tarifa de IVA conocida`);
        } else if (iva) {
          lineOk = false;
          fail(`${at}.taxes`, `cada línea lleva un solo IVA; esta lleva ${iva.tax.code} y ${tax.code}`);
        } else {
          iva = { tax, j };
        }
      } else if (t.rate === undefined && t.specific_amount === undefined) {
        lineOk = false;
        fail(`${tat}.rate`, 'un ICE necesita su tarifa ad valorem en porcentaje (rate, por ejemplo "75") o su valor específico en dólares (specific_amount), o ambos');
      } else if (ices.length > 0) {
        lineOk = false;
        fail(`${at}.taxes`, 'cada línea lleva a lo sumo un ICE');
      } else {
        ices.push({ tax, j });
      }
    }
    if (!ivaNamed && !unknownTax) fail(`${at}.taxes`, 'cada línea lleva exactamente un IVA, aunque sea 0 %, por ejemplo {"type": "ec-iva-0"} o {"type": "ec-iva-15"}');
    if (!lineOk || !iva) return;

    const taxes: TaxAmount[] = [];
    let vatBase = subtotal;
    for (const { tax, j } of ices) {
      const t = line.taxes[j]!;
      const rate = normalize(t.rate ?? '0');
      const value = percentOf(subtotal, rate) + (t.specific_amount ? cents(t.specific_amount) : 0n);
      taxes.push({ type: tax.code, codigo: TAX_CODE.ice!, codigoPorcentaje: tax.authority_code, tarifa: rate, baseImponible: money(subtotal), valor: money(value) });
      vatBase += value;
    }
    const vatRate = IVA_RATES[iva.tax.authority_code]!;
    const vat = percentOf(vatBase, vatRate);
    taxes.push({ type: iva.tax.code, codigo: TAX_CODE.iva!, codigoPorcentaje: iva.tax.authority_code, tarifa: vatRate, baseImponible: money(vatBase), valor: money(vat) });
    if (vatBase + vat >= MAX_CENTS) return fail(at, 'sus importes exceden los 12 dígitos enteros que admite el SRI');
    lines.push({
      code: line.code,
      description: line.description,
      quantity: line.quantity,
      unitPrice: line.unit_price,
      discount: money(discount),
      subtotal: money(subtotal),
      taxes,
    });
  });

  const payments: Payment[] = (body.payments ?? []).map((p) => ({ method: p.method, amount: money(cents(p.amount)), term: p.term, unit: p.unit }));

  const additionalInfo = (body.additional_info ?? []).map((f) => ({ name: f.name, value: f.value }));
  const fields = additionalInfo.length + (body.customer.email ? 1 : 0) + (body.customer.phone ? 1 : 0);
  if (fields > MAX_ADDITIONAL_FIELDS) {
    fail('additional_info', `con el correo y el teléfono del cliente (que el XML lleva como campos adicionales) suman ${fields} campos; el SRI admite ${MAX_ADDITIONAL_FIELDS}`);
  }

  if (errors.length > 0) return { errors };

  // Totals per tax and rate, in the order they first appear.
  const totals = new Map<string, { tax: TaxAmount; base: bigint; value: bigint }>();
  for (const line of lines) {
    for (const tax of line.taxes) {
      const key = `${tax.type}|${tax.tarifa}`;
      const total = totals.get(key) ?? { tax, base: 0n, value: 0n };
      total.base += cents(tax.baseImponible);
      total.value += cents(tax.valor);
      totals.set(key, total);
    }
  }
  const taxTotals: TaxAmount[] = [...totals.values()].map(({ tax, base, value }) => ({ ...tax, baseImponible: money(base), valor: money(value) }));
  const totalWithoutTaxes = lines.reduce((sum, l) => sum + cents(l.subtotal), 0n);
  const totalDiscount = lines.reduce((sum, l) => sum + cents(l.discount), 0n);
  const tip = 0n;
  const taxSum = taxTotals.reduce((sum, t) => sum + cents(t.valor), 0n);
  const grandTotal = totalWithoutTaxes + taxSum + tip;
  if (grandTotal >= MAX_CENTS) return { errors: [{ path: 'lines', message: `el total de ${document} excede los 12 dígitos enteros que admite el SRI` }] };

  const breakdown = `subtotal ${money(totalWithoutTaxes)} + impuestos ${money(taxSum)}`;
  if (body.grand_total !== undefined && cents(body.grand_total) !== grandTotal) {
    fail('grand_total', `no coincide con el total que calcula Sello: ${money(grandTotal)} (${breakdown}); se indicó ${money(cents(body.grand_total))}`);
  }
  const paid = payments.reduce((sum, p) => sum + cents(p.amount), 0n);
  if (body.payments !== undefined && paid !== grandTotal) {
    fail('payments', `la suma de los pagos (${money(paid)}) no coincide con el total de ${document}, ${money(grandTotal)} (${breakdown})`);
  }
  if (errors.length > 0) return { errors };

  return {
    ok: {
      issueDate: body.issue_date,
      establishment: body.establishment,
      emissionPoint: body.emission_point,
      currency: 'USD',
      customer: {
        name: body.customer.name,
        taxId: body.customer.tax_id,
        idType: idType.type,
        idTypeCode: idTypeCode!,
        email: body.customer.email,
        address: body.customer.address,
        phone: body.customer.phone,
      },
      lines,
      totalWithoutTaxes: money(totalWithoutTaxes),
      totalDiscount: money(totalDiscount),
      taxTotals,
      tip: money(tip),
      grandTotal: money(grandTotal),
      payments,
      additionalInfo,
    },
    warnings,
  };
}

/**
 * Whether the issuer has the invoice's establishment and emission point (the body names them; the
 * issuer's configuration lists them).
 *
 * @example seriesErrors(issuer, '002', '001') // [{ path: 'establishment', message: '…' }]
 */
export function seriesErrors(issuer: Issuer, establishment: string, emissionPoint: string): FieldError[] {
  const found = issuer.establishments.find((e) => e.code === establishment);
  if (!found) {
    const known = issuer.establishments.map((e) => e.code).join(', ');
    return [{ path: 'establishment', message: `el emisor no tiene el establecimiento ${establishment} (tiene: ${known || 'ninguno'}); configúrelo en PUT /api/v1/issuer` }];
  }
  if (!found.emission_points.includes(emissionPoint)) {
    return [{ path: 'emission_point', message: `el establecimiento ${establishment} no tiene el punto de emisión ${emissionPoint} (tiene: ${found.emission_points.join(', ') || 'ninguno'})` }];
  }
  return [];
}
