/**
 * Sample Ecuadorian invoices for tests (CONTRACT §15): an issuer with valid RUC, a
 * ComputedInvoice of any number of lines whose totals add up (IVA 15 %, 0 % and 5 %, computed
 * here in integer cents, half up, the way the SRI rounds), and its numbering with a valid
 * 49-digit access key. Names carry accents and ñ on purpose.
 */
import { withCheckDigit } from '../../core/documents/access-key.js';
import type { Ambiente, Authorization, ComputedInvoice, ComputedLine, Issuer, Numbering, TaxAmount } from '../../core/fiscal/sri/invoice-model.js';

export const SAMPLE_ISSUE_DATE = '2025-03-14';
/** A sociedad privada RUC (third digit 9, modulo 11 with 4,3,2,7,6,5,4,3,2). */
export const SAMPLE_RUC = '1790012344001';
/** A cédula with a valid modulo-10 digit. */
export const SAMPLE_CEDULA = '1712345675';

export function sampleIssuer(overrides: Partial<Issuer> = {}): Issuer {
  return {
    country: 'EC',
    ruc: SAMPLE_RUC,
    razon_social: 'Comercializadora Andina Pérez & Asociados S.A.',
    nombre_comercial: 'Café Ñusta',
    dir_matriz: 'Av. Amazonas N34-451 y Atahualpa, Quito',
    establishments: [{ code: '001', address: 'Av. 9 de Octubre 1215 y Pedro Moncayo, Guayaquil', emission_points: ['001', '002'] }],
    obligado_contabilidad: true,
    contribuyente_especial: '5368',
    regimen: 'general',
    certificate_id: 'cert_sample',
    ...overrides,
  };
}

interface Rate {
  type: string;
  codigoPorcentaje: string;
  percent: number;
}

/** The rates the lines cycle through. */
export const SAMPLE_RATES: readonly Rate[] = [
  { type: 'ec-iva-15', codigoPorcentaje: '4', percent: 15 },
  { type: 'ec-iva-0', codigoPorcentaje: '0', percent: 0 },
  { type: 'ec-iva-5', codigoPorcentaje: '5', percent: 5 },
];

const SHORT = [
  'Asesoría contable mensual',
  'Declaración de IVA y retenciones',
  'Diseño de logotipo para compañía',
  'Café de altura, tostado medio, 500 g',
  'Capacitación en facturación electrónica',
  'Útiles de oficina: cuadernos y bolígrafos',
];
const LONG =
  'Mantenimiento preventivo y correctivo de equipos de cómputo de la oficina matriz, incluye limpieza interna, ' +
  'actualización de controladores, revisión de la fuente de poder y diagnóstico de periféricos';

/** Line n (1-based): every fifth one has a description long enough to wrap. */
export function sampleDescription(n: number): string {
  return n % 5 === 0 ? `${LONG} (línea ${n})` : `${SHORT[(n - 1) % SHORT.length]} (línea ${n})`;
}

const money = (cents: number): string => `${Math.trunc(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
/** `cents × percent / 100`, half up. */
const taxOf = (cents: number, percent: number): number => Math.floor((cents * percent + 50) / 100);

function tax(rate: Rate, baseCents: number): TaxAmount {
  return {
    type: rate.type,
    codigo: '2',
    codigoPorcentaje: rate.codigoPorcentaje,
    tarifa: String(rate.percent),
    baseImponible: money(baseCents),
    valor: money(taxOf(baseCents, rate.percent)),
  };
}

/**
 * An invoice of `lines` lines, rates cycling 15 %, 0 %, 5 %: quantity 1–4, unit price
 * 10.37 + 0.37 × (n − 1), a discount of 1.00 on every fourth line; totals per rate on the summed
 * bases; two payments (10.00 in cash, the rest by transfer at 30 días).
 */
export function sampleInvoice(lines = 3): ComputedInvoice {
  const computed: ComputedLine[] = [];
  const bases = new Map<Rate, number>();
  let totalCents = 0;
  let discountCents = 0;
  for (let n = 1; n <= lines; n++) {
    const rate = SAMPLE_RATES[(n - 1) % SAMPLE_RATES.length]!;
    const quantity = (n % 4) + 1;
    const priceCents = 1037 + 37 * (n - 1);
    const discount = n % 4 === 0 ? 100 : 0;
    const subtotal = quantity * priceCents - discount;
    computed.push({
      code: `P${String(n).padStart(4, '0')}`,
      description: sampleDescription(n),
      quantity: String(quantity),
      unitPrice: money(priceCents),
      discount: money(discount),
      subtotal: money(subtotal),
      taxes: [tax(rate, subtotal)],
    });
    bases.set(rate, (bases.get(rate) ?? 0) + subtotal);
    totalCents += subtotal;
    discountCents += discount;
  }
  const taxTotals = SAMPLE_RATES.filter((r) => bases.has(r)).map((r) => tax(r, bases.get(r)!));
  const taxCents = [...bases].reduce((s, [r, base]) => s + taxOf(base, r.percent), 0);
  const grand = totalCents + taxCents;
  const cash = Math.min(1000, grand);
  return {
    issueDate: SAMPLE_ISSUE_DATE,
    establishment: '001',
    emissionPoint: '001',
    currency: 'USD',
    customer: {
      name: 'María José Núñez Peñaherrera',
      taxId: SAMPLE_CEDULA,
      idType: 'ec-cedula',
      idTypeCode: '05',
      email: 'mjnunez@example.ec',
      address: 'Calle Sucre 1-23 y Bolívar, Cuenca',
      phone: '0991234567',
    },
    lines: computed,
    totalWithoutTaxes: money(totalCents),
    totalDiscount: money(discountCents),
    taxTotals,
    tip: '0.00',
    grandTotal: money(grand),
    payments: [
      { method: '01', amount: money(cash) },
      ...(grand > cash ? [{ method: '20', amount: money(grand - cash), term: '30', unit: 'dias' }] : []),
    ],
    additionalInfo: [
      { name: 'Email', value: 'mjnunez@example.ec' },
      { name: 'Observación', value: 'Entrega en la bodega de Guayaquil, horario de atención de 08h00 a 17h00' },
    ],
  };
}

export interface SampleNumberingOptions {
  ambiente?: Ambiente;
  secuencial?: string;
  issueDate?: string;
  ruc?: string;
  establishment?: string;
  emissionPoint?: string;
  /** The 8-digit código numérico. */
  code?: string;
  /** The SRI's type code (default "01", a factura). */
  codDoc?: string;
}

/** The numbering of a comprobante (a factura unless `codDoc` says otherwise) with a valid access key; defaults match the samples above. */
export function sampleNumbering(options: SampleNumberingOptions = {}): Numbering {
  const ambiente = options.ambiente ?? 1;
  const secuencial = options.secuencial ?? '000000123';
  const [y, m, d] = (options.issueDate ?? SAMPLE_ISSUE_DATE).split('-');
  const estab = options.establishment ?? '001';
  const pto = options.emissionPoint ?? '001';
  const first48 = `${d}${m}${y}${options.codDoc ?? '01'}${options.ruc ?? SAMPLE_RUC}${ambiente}${estab}${pto}${secuencial}${options.code ?? '12345678'}1`;
  return { ambiente, secuencial, numero: `${estab}-${pto}-${secuencial}`, accessKey: withCheckDigit(first48) };
}

/** The SRI's authorization of `numbering` (the number is the access key in the offline scheme). */
export function sampleAuthorization(numbering: Numbering = sampleNumbering(), date = `${SAMPLE_ISSUE_DATE}T10:15:30-05:00`): Authorization {
  return { number: numbering.accessKey, date };
}
