/**
 * The RIDE (Representación Impresa del Documento Electrónico) of an Ecuadorian factura, nota de
 * crédito, nota de débito, liquidación de compra, guía de remisión or comprobante de retención, as
 * the PDF a customer
 * receives (CONTRACT §15 "Downloads"), laid out like the SRI's own: the issuer on the left and the
 * document (RUC, its name and number, authorization, ambiente, emisión, access key as Code 128
 * and as text) on the right. Then, for the documents with amounts: the buyer (a liquidación's
 * supplier), and for a nota the factura it modifies (and a nota de crédito's reason); the lines,
 * or a nota de débito's reasons with their values; additional information and payments (when the
 * document has them) beside the totals. For a guide: the transport, then each recipient with the
 * goods it receives, then additional information. For a comprobante de retención: the withheld
 * supplier and the fiscal period, the purchase it applies to, the table of withholdings, and
 * additional information beside the total withheld. A4, as many pages as the tables need (their
 * header repeated, "Página i de n").
 *
 * The same data gives the same bytes: the PDF's dates are the authorization's (or the issue
 * date's), never the clock's.
 */
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { comprobanteDefinition, type ComprobanteKind } from './comprobantes.js';
import type { Authorization, ComputedCreditNote, ComputedDebitNote, ComputedInvoice, ComputedPurchaseSettlement, Issuer, ModifiedDocument, Numbering } from './invoice-model.js';
import type { ComputedRemissionGuide, GuideRecipient } from './remission-guide-model.js';
import { drawCode128 } from './ride-barcode.js';
import { documentTitle, paymentMethodName, rimpeLegend, supportDocumentName, totalsRows, withheldTaxName, type TotalsRow } from './ride-labels.js';
import {
  CONTENT_WIDTH,
  MARGIN,
  PageFlow,
  boxed,
  drawLine,
  drawRow,
  layoutBlock,
  layoutRow,
  type BlockItem,
  type Column,
  type Fonts,
  type Laid,
  type Row,
} from './ride-layout.js';
import { formatDate, formatDateTime, formatDecimal, formatRate, startOfDayInEcuador } from './ride-text.js';
import type { ComputedWithholding } from './withholding-model.js';

/** The documents that sell (or buy): a party, lines or reasons, totals. */
type SaleDocument = ComputedInvoice | ComputedCreditNote | ComputedDebitNote | ComputedPurchaseSettlement;
type RideDocument = SaleDocument | ComputedRemissionGuide | ComputedWithholding;

export interface RideData {
  /** Names the document on paper ("FACTURA", "NOTA DE CRÉDITO", "GUÍA DE REMISIÓN"…); must match `document`'s shape. */
  kind: ComprobanteKind;
  issuer: Issuer;
  document: RideDocument;
  numbering: Numbering;
  /** Absent until the SRI authorizes the document: the RIDE then says "PENDIENTE". */
  authorization?: Authorization | undefined;
  environment: 'PRUEBAS' | 'PRODUCCIÓN';
  emission: 'NORMAL';
}

const GAP = 8;
const BOX_PAD = 7;
const LEFT_TOP_WIDTH = 255;
const RIGHT_TOP_WIDTH = CONTENT_WIDTH - LEFT_TOP_WIDTH - GAP;
const BARCODE_HEIGHT = 40;
const BODY_SIZE = 8;
const HEADER_SIZE = 7.5;

/** Renders the RIDE of `data` as a PDF. */
export async function renderRide(data: RideData): Promise<Buffer> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  const fonts: Fonts = {
    regular: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
  };
  const { document } = data;
  const title = comprobanteDefinition(data.kind).title;
  // A nota printed as a factura (or any other swap) would be a false document: refuse.
  if (data.kind !== shapeKind(document)) {
    // "de el comprobante" contracts to "del comprobante".
    throw new Error(`los datos no son los de ${comprobanteDefinition(data.kind).named}`.replace(/ de el /, ' del '));
  }
  setMetadata(doc, data, title);

  const flow = new PageFlow(doc);
  flow.addPage();
  drawTop(flow, data, title, fonts);
  const continuation = continuationHeader(data, title, fonts);
  const startPage = (f: PageFlow): void => {
    continuation.draw(f.page, MARGIN, f.y);
    f.y -= continuation.height + GAP;
  };
  if ('recipients' in document) drawGuide(flow, document, startPage, fonts);
  else if ('support' in document) drawWithholding(flow, document, startPage, fonts);
  else drawSale(flow, document, startPage, fonts);

  const count = flow.pages.length;
  flow.pages.forEach((page, i) => {
    drawLine(page, `Página ${i + 1} de ${count}`, fonts.regular, 7.5, MARGIN, MARGIN + 9, CONTENT_WIDTH, 'right');
    drawLine(page, `${title} ${data.numbering.numero}`, fonts.regular, 7.5, MARGIN, MARGIN + 9, CONTENT_WIDTH, 'left');
  });

  // A classic xref table: the plainest file for whatever later reads or signs it.
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** Issuer and document, side by side in boxes of the same height, at the top of page 1. */
function drawTop(flow: PageFlow, data: RideData, title: string, fonts: Fonts): void {
  const issuerBox = boxed((w) => layoutBlock(issuerItems(data.issuer, data.document), w, fonts), LEFT_TOP_WIDTH, BOX_PAD);
  const documentBox = boxed((w) => layoutBlock(documentItems(data, title, fonts), w, fonts), RIGHT_TOP_WIDTH, BOX_PAD);
  const topHeight = Math.max(issuerBox.height, documentBox.height);
  issuerBox.withHeight(topHeight).draw(flow.page, MARGIN, flow.y);
  documentBox.withHeight(topHeight).draw(flow.page, MARGIN + LEFT_TOP_WIDTH + GAP, flow.y);
  flow.y -= topHeight + GAP;
}

/** A full-width box drawn at the cursor; the caller knows it fits (page 1 has the room). */
function drawBox(flow: PageFlow, box: Laid): void {
  box.draw(flow.page, MARGIN, flow.y);
  flow.y -= box.height + GAP;
}

/**
 * The body of a factura, nota or liquidación: the buyer, what a nota modifies, the lines (a nota
 * de débito's reasons), the totals and beside them additional information and payments.
 */
function drawSale(flow: PageFlow, document: SaleDocument, startPage: (f: PageFlow) => void, fonts: Fonts): void {
  drawBox(flow, boxed((w) => layoutBlock(buyerItems(document), w, fonts), CONTENT_WIDTH, BOX_PAD));

  // A nota names what it modifies in a box of its own under the buyer's, as the SRI's RIDEs do.
  // A nota de crédito's long reason makes the box taller; page 1 still has the room (the reason
  // is at most 300 characters in the XSD). A nota de débito's reasons are its table, not this box.
  if ('modified' in document) {
    const reason = 'reason' in document ? document.reason : null;
    drawBox(flow, boxed((w) => layoutBlock(modificationItems(document.modified, reason, fonts), w, fonts), CONTENT_WIDTH, BOX_PAD));
  }

  flowTable(flow, detailTable(document, fonts), startPage);
  drawTotalsBeside(flow, totalsRows(document), sideRows(document, fonts), fonts);
}

/** Totals on the right, in one piece; `side` (additional information, payments) flows on the left. */
function drawTotalsBeside(flow: PageFlow, rows: readonly TotalsRow[], side: Row[], fonts: Fonts): void {
  const totals = rows.map((r) => layoutRow([{ text: r.label, bold: true }, { text: r.value, bold: r.strong ?? false }], TOTAL_COLUMNS, fonts, BODY_SIZE));
  const totalsHeight = totals.reduce((h, r) => h + r.height, 0);
  flow.ensure(totalsHeight);
  let y = flow.y;
  for (const r of totals) {
    drawRow(flow.page, r, MARGIN + CONTENT_WIDTH - TOTALS_WIDTH, y);
    y -= r.height;
  }
  flow.flowRows(side, MARGIN);
}

/**
 * The body of a comprobante de retención, as the SRI's RIDE of one prints it: the withheld
 * supplier, the purchase the withholdings apply to, a row per withholding (the purchase repeated
 * on each, as the SRI's columns want), then additional information beside the total withheld.
 */
function drawWithholding(flow: PageFlow, withholding: ComputedWithholding, startPage: (f: PageFlow) => void, fonts: Fonts): void {
  drawBox(flow, boxed((w) => layoutBlock(subjectItems(withholding, fonts), w, fonts), CONTENT_WIDTH, BOX_PAD));
  drawBox(flow, boxed((w) => layoutBlock(supportItems(withholding, fonts), w, fonts), CONTENT_WIDTH, BOX_PAD));
  flowTable(flow, withholdingTable(withholding, fonts), startPage);
  drawTotalsBeside(flow, [{ label: 'TOTAL RETENIDO', value: formatDecimal(withholding.totalWithheld), strong: true }], sideRows(withholding, fonts), fonts);
}

/**
 * The body of a guía de remisión, as the SRI's RIDE of a guide prints it: the transport, then
 * each recipient's box followed by the goods it receives, and the additional information. A
 * guide has no amounts: no totals, no payments.
 */
function drawGuide(flow: PageFlow, guide: ComputedRemissionGuide, startPage: (f: PageFlow) => void, fonts: Fonts): void {
  drawBox(flow, boxed((w) => layoutBlock(transportItems(guide, fonts), w, fonts), CONTENT_WIDTH, BOX_PAD));
  for (const recipient of guide.recipients) {
    const box = boxed((w) => layoutBlock(recipientItems(recipient, fonts), w, fonts), CONTENT_WIDTH, BOX_PAD);
    flowTable(flow, goodsTable(recipient, fonts), startPage, { lead: box, caption: continuedCaption(recipient, fonts) });
  }
  const info = sideRows(guide, fonts);
  // The "Información Adicional" header never alone at a page's foot.
  flow.ensure(info.slice(0, 2).reduce((h, r) => h + r.height, 0));
  flow.flowRows(info, MARGIN);
}

interface Table {
  header: Row;
  rows: Row[];
}

/**
 * Draws `table` at the cursor, under `lead` (the box it belongs to) when given: its header again
 * on every page its rows reach (after `caption`, which says whose rows go on), and never the
 * lead or the header alone at a page's foot. Leaves pages starting with `startPage` only.
 */
function flowTable(flow: PageFlow, table: Table, startPage: (f: PageFlow) => void, options: { lead?: Laid; caption?: Row } = {}): void {
  const { lead, caption } = options;
  flow.onNewPage = startPage;
  // A first row taller than this is cut across pages anyway: no use waiting a page for it.
  flow.ensure((lead?.height ?? 0) + table.header.height + Math.min(table.rows[0]?.height ?? 0, 200));
  // The table hangs from its lead's foot: one piece on paper, as the SRI draws a recipient.
  if (lead) {
    lead.draw(flow.page, MARGIN, flow.y);
    flow.y -= lead.height;
  }
  flow.onNewPage = (f) => {
    startPage(f);
    f.flowRows(caption ? [caption, table.header] : [table.header], MARGIN);
  };
  flow.flowRows([table.header, ...table.rows], MARGIN);
  flow.onNewPage = startPage;
  flow.y -= GAP;
}

// ---------------------------------------------------------------------------------------------

/**
 * The kind `document`'s shape says it is: only a comprobante de retención has a withheld subject
 * and a support purchase, only a guía de remisión recipients, only a nota de débito reasons, only
 * a liquidación de compra a supplier, and of the others only a nota de crédito names what it
 * modifies.
 */
function shapeKind(document: RideDocument): ComprobanteKind {
  if ('support' in document && 'subject' in document) return 'withholding';
  if ('recipients' in document) return 'remission_guide';
  if ('reasons' in document) return 'debit_note';
  if ('supplier' in document) return 'purchase_settlement';
  return 'modified' in document ? 'credit_note' : 'invoice';
}

const LINE_HEADERS = ['Cód. Principal', 'Cant.', 'Descripción', 'Precio Unitario', 'Descuento', 'Precio Total'];
const LINE_COLUMNS: Column[] = (() => {
  const fixed: Column[] = [
    { width: 62, align: 'left' },
    { width: 50, align: 'right' },
    { width: 0, align: 'left' },
    { width: 62, align: 'right' },
    { width: 52, align: 'right' },
    { width: 62, align: 'right' },
  ];
  fixed[2]!.width = CONTENT_WIDTH - fixed.reduce((w, c) => w + c.width, 0);
  return fixed;
})();

/** A nota de débito's table, headed as the SRI's RIDE heads it. */
const REASON_HEADERS = ['RAZÓN DE LA MODIFICACIÓN', 'VALOR DE LA MODIFICACIÓN'];
const REASON_VALUE_WIDTH = 120;
const REASON_COLUMNS: Column[] = [
  { width: CONTENT_WIDTH - REASON_VALUE_WIDTH, align: 'left' },
  { width: REASON_VALUE_WIDTH, align: 'right' },
];

const TOTALS_WIDTH = 215;
const TOTAL_COLUMNS: Column[] = [
  { width: 145, align: 'left' },
  { width: TOTALS_WIDTH - 145, align: 'right' },
];
const SIDE_WIDTH = CONTENT_WIDTH - TOTALS_WIDTH - GAP;
const INFO_COLUMNS: Column[] = [
  { width: 100, align: 'left' },
  { width: SIDE_WIDTH - 100, align: 'left' },
];
const PAYMENT_COLUMNS: Column[] = [
  { width: SIDE_WIDTH - 130, align: 'left' },
  { width: 60, align: 'right' },
  { width: 70, align: 'center' },
];

function issuerItems(issuer: Issuer, document: RideDocument): BlockItem[] {
  const field = (label: string, value: string): BlockItem => ({ kind: 'field', label, value, size: BODY_SIZE, labelWidth: 105, gap: 3 });
  const establishment = issuer.establishments.find((e) => e.code === document.establishment);
  const items: BlockItem[] = [{ kind: 'text', text: issuer.razon_social, bold: true, size: 11 }];
  if (issuer.nombre_comercial) items.push({ kind: 'text', text: issuer.nombre_comercial, bold: true, size: 9, gap: 3 });
  items.push({ kind: 'drawing', height: 4, draw: () => {} });
  items.push(field('Dirección Matriz:', issuer.dir_matriz));
  if (establishment) items.push(field('Dirección Establecimiento:', establishment.address));
  if (issuer.contribuyente_especial) items.push(field('Contribuyente Especial Nro.:', issuer.contribuyente_especial));
  items.push(field('OBLIGADO A LLEVAR CONTABILIDAD:', issuer.obligado_contabilidad ? 'SI' : 'NO'));
  if (issuer.agente_retencion) items.push(field('Agente de Retención Resolución No.:', issuer.agente_retencion));
  const rimpe = rimpeLegend(issuer.regimen);
  if (rimpe) items.push({ kind: 'text', text: rimpe, bold: true, size: BODY_SIZE, gap: 6 });
  return items;
}

/**
 * A maker of "label: value" fields for `labels`: each label on one line, the values aligned
 * after the widest (a long value wraps beside its label).
 */
function alignedFields<L extends string>(labels: readonly L[], fonts: Fonts): (label: L, value: string) => BlockItem {
  const labelWidth = Math.max(...labels.map((l) => fonts.bold.widthOfTextAtSize(l, BODY_SIZE))) + 8;
  return (label, value) => ({ kind: 'field', label, value, size: BODY_SIZE, labelWidth, gap: 3 });
}

function documentItems(data: RideData, title: string, fonts: Fonts): BlockItem[] {
  const { numbering, authorization } = data;
  const field = alignedFields(['FECHA Y HORA DE AUTORIZACIÓN:', 'AMBIENTE:', 'EMISIÓN:'], fonts);
  return [
    { kind: 'text', text: `R.U.C.: ${data.issuer.ruc}`, bold: true, size: 11 },
    { kind: 'text', text: title, bold: true, size: 14, gap: 5 },
    { kind: 'text', text: `No. ${numbering.numero}`, bold: true, size: 11, gap: 3 },
    { kind: 'text', text: 'NÚMERO DE AUTORIZACIÓN', bold: true, size: BODY_SIZE, gap: 6 },
    { kind: 'text', text: authorization?.number ?? 'PENDIENTE', size: 8.5, fit: true },
    field('FECHA Y HORA DE AUTORIZACIÓN:', authorization ? formatDateTime(authorization.date).text : 'PENDIENTE'),
    field('AMBIENTE:', data.environment),
    field('EMISIÓN:', data.emission),
    { kind: 'text', text: 'CLAVE DE ACCESO', bold: true, size: BODY_SIZE, gap: 6 },
    {
      kind: 'drawing',
      height: BARCODE_HEIGHT,
      gap: 3,
      draw: (page, x, top, width) => drawCode128(page, numbering.accessKey, { x, y: top - BARCODE_HEIGHT, width, height: BARCODE_HEIGHT }),
    },
    { kind: 'text', text: numbering.accessKey, size: 8.5, align: 'center', fit: true, gap: 2 },
  ];
}

function buyerItems(document: SaleDocument): BlockItem[] {
  // The party of a liquidación de compra is its proveedor, printed where a factura's buyer is.
  const customer = 'supplier' in document ? document.supplier : document.customer;
  const field = (label: string, value: string, labelWidth = 100): BlockItem => ({ kind: 'field', label, value, size: BODY_SIZE, labelWidth });
  const items: BlockItem[] = [
    { kind: 'pair', leftShare: 0.64, left: field('Razón Social / Nombres y Apellidos:', customer.name, 150), right: field('Identificación:', customer.taxId, 70) },
    { kind: 'pair', leftShare: 0.64, left: field('Fecha de Emisión:', formatDate(document.issueDate), 150), right: customer.phone ? field('Teléfono:', customer.phone, 70) : null, gap: 3 },
  ];
  if (customer.address) items.push({ ...field('Dirección:', customer.address, 150), gap: 3 });
  if (customer.email) items.push({ ...field('Correo electrónico:', customer.email, 150), gap: 3 });
  return items;
}

/** The SRI's name of the document a nota modifies, by its codDoc. */
const MODIFIED_TITLES: Record<ModifiedDocument['codDoc'], string> = {
  '01': comprobanteDefinition('invoice').title,
};

/**
 * What a nota modifies and, for a nota de crédito, why (`reason`; null for a nota de débito,
 * whose reasons are its table), the labels as the SRI's RIDE writes them.
 */
function modificationItems(modified: ModifiedDocument, reason: string | null, fonts: Fonts): BlockItem[] {
  const field = alignedFields(['Comprobante que se modifica:', 'Fecha Emisión (Comprobante a modificar):', 'Razón de Modificación:'], fonts);
  const items = [
    field('Comprobante que se modifica:', `${MODIFIED_TITLES[modified.codDoc]} ${modified.numero}`),
    field('Fecha Emisión (Comprobante a modificar):', formatDate(modified.issueDate)),
  ];
  if (reason !== null) items.push(field('Razón de Modificación:', reason));
  return items;
}

/** A table's header row: bold, centred, on grey. */
function headerRow(texts: readonly string[], columns: readonly Column[], fonts: Fonts): Row {
  return layoutRow(texts.map((text) => ({ text, bold: true, fill: true, align: 'center' as const })), columns, fonts, HEADER_SIZE);
}

/** The body table's header and rows: a nota de débito's reasons and their values, or the lines of the others. */
function detailTable(document: SaleDocument, fonts: Fonts): Table {
  if ('reasons' in document) {
    return {
      header: headerRow(REASON_HEADERS, REASON_COLUMNS, fonts),
      rows: document.reasons.map((r) => layoutRow([{ text: r.reason }, { text: formatDecimal(r.amount) }], REASON_COLUMNS, fonts, BODY_SIZE)),
    };
  }
  return {
    header: headerRow(LINE_HEADERS, LINE_COLUMNS, fonts),
    rows: document.lines.map((l) =>
      layoutRow(
        [
          { text: l.code },
          { text: formatDecimal(l.quantity) },
          { text: l.description },
          { text: formatDecimal(l.unitPrice) },
          { text: formatDecimal(l.discount) },
          { text: formatDecimal(l.subtotal) },
        ],
        LINE_COLUMNS,
        fonts,
        BODY_SIZE,
      ),
    ),
  };
}

/**
 * The rows beside the totals: "Información Adicional" and the formas de pago (a factura's, a nota
 * de débito's; a nota de crédito has none; a withholding's are its purchase's, not printed); a
 * guide's additional information, which has no totals.
 */
function sideRows(document: RideDocument, fonts: Fonts): Row[] {
  const rows: Row[] = [];
  if (document.additionalInfo.length > 0) {
    rows.push(layoutRow([{ text: 'Información Adicional', bold: true, fill: true, span: 2, align: 'center' }], INFO_COLUMNS, fonts, HEADER_SIZE));
    for (const item of document.additionalInfo) rows.push(layoutRow([{ text: item.name, bold: true }, { text: item.value }], INFO_COLUMNS, fonts, BODY_SIZE));
  }
  if ('payments' in document && document.payments.length > 0) {
    if (rows.length > 0) rows.push(spacer());
    rows.push(layoutRow(['Forma de pago', 'Valor', 'Plazo'].map((text) => ({ text, bold: true, fill: true, align: 'center' as const })), PAYMENT_COLUMNS, fonts, HEADER_SIZE));
    for (const p of document.payments) {
      const term = [p.term, p.unit].filter((s): s is string => Boolean(s)).join(' ');
      rows.push(layoutRow([{ text: paymentMethodName(p.method) }, { text: formatDecimal(p.amount) }, { text: term }], PAYMENT_COLUMNS, fonts, BODY_SIZE));
    }
  }
  return rows;
}

// ---------------------------------------------------------------------------------------------
// A guía de remisión's boxes and tables.

/** The transport, labelled as the SRI's RIDE of a guide labels it. */
function transportItems(guide: ComputedRemissionGuide, fonts: Fonts): BlockItem[] {
  const field = alignedFields(
    ['Identificación (Transportista):', 'Razón Social / Nombres y Apellidos:', 'Placa:', 'Punto de Partida:', 'Fecha Inicio Transporte:'],
    fonts,
  );
  const end = alignedFields(['Fecha Fin Transporte:'], fonts);
  return [
    field('Identificación (Transportista):', guide.carrier.taxId),
    field('Razón Social / Nombres y Apellidos:', guide.carrier.name),
    field('Placa:', guide.plate),
    field('Punto de Partida:', guide.departureAddress),
    // Both dates on one line, as the SRI prints them.
    {
      kind: 'pair',
      leftShare: 0.5,
      left: field('Fecha Inicio Transporte:', formatDate(guide.transportStart)),
      right: end('Fecha Fin Transporte:', formatDate(guide.transportEnd)),
      gap: 3,
    },
  ];
}

const RECIPIENT_LABELS = [
  'Comprobante de Venta:',
  'Número de Autorización:',
  'Motivo Traslado:',
  'Destino (Punto de llegada):',
  'Identificación (Destinatario):',
  'Razón Social / Nombres Apellidos:',
  'Documento Aduanero:',
  'Código Establecimiento Destino:',
  'Ruta:',
] as const;

/**
 * A recipient and the document that supports its goods, in the SRI's order; a line whose value
 * the guide lacks is left out rather than printed empty.
 */
function recipientItems(recipient: GuideRecipient, fonts: Fonts): BlockItem[] {
  const field = alignedFields(RECIPIENT_LABELS, fonts);
  const optional = (label: (typeof RECIPIENT_LABELS)[number], value: string | undefined): BlockItem[] => (value ? [field(label, value)] : []);
  const support = recipient.supportDocument;
  const items: BlockItem[] = [];
  if (support) {
    // The document and its date on one line, as the SRI prints them.
    items.push({
      kind: 'pair',
      leftShare: 0.64,
      left: field('Comprobante de Venta:', supportDocumentName(support.codDoc, support.numero)),
      right: alignedFields(['Fecha de Emisión:'], fonts)('Fecha de Emisión:', formatDate(support.issueDate)),
    });
    items.push(...optional('Número de Autorización:', support.authorizationNumber));
  }
  items.push(
    field('Motivo Traslado:', recipient.reason),
    field('Destino (Punto de llegada):', recipient.address),
    field('Identificación (Destinatario):', recipient.taxId),
    field('Razón Social / Nombres Apellidos:', recipient.name),
    ...optional('Documento Aduanero:', recipient.customsDocument),
    ...optional('Código Establecimiento Destino:', recipient.destinationEstablishment),
    ...optional('Ruta:', recipient.route),
  );
  return items;
}

const GOODS_HEADERS = ['Cantidad', 'Descripción', 'Código Principal', 'Código Auxiliar'];
const GOODS_COLUMNS: Column[] = (() => {
  // The codes are up to 25 characters (the XSD's codigoInterno, codigoAdicional): most on one line.
  const fixed: Column[] = [
    { width: 62, align: 'right' },
    { width: 0, align: 'left' },
    { width: 100, align: 'left' },
    { width: 100, align: 'left' },
  ];
  fixed[1]!.width = CONTENT_WIDTH - fixed.reduce((w, c) => w + c.width, 0);
  return fixed;
})();

/** The goods a recipient receives, in the SRI's columns. */
function goodsTable(recipient: GuideRecipient, fonts: Fonts): Table {
  return {
    header: headerRow(GOODS_HEADERS, GOODS_COLUMNS, fonts),
    rows: recipient.goods.map((g) =>
      layoutRow([{ text: formatDecimal(g.quantity) }, { text: g.description }, { text: g.code }, { text: g.additionalCode ?? '' }], GOODS_COLUMNS, fonts, BODY_SIZE),
    ),
  };
}

/**
 * The row over a goods table that goes on on a new page: with several recipients, a page that
 * starts with goods must say whose they are.
 */
function continuedCaption(recipient: GuideRecipient, fonts: Fonts): Row {
  const text = `Destinatario: ${recipient.name} · ${recipient.taxId} (continuación)`;
  return layoutRow([{ text, bold: true, span: GOODS_COLUMNS.length, align: 'left' }], GOODS_COLUMNS, fonts, BODY_SIZE);
}

// ---------------------------------------------------------------------------------------------
// A comprobante de retención's boxes and table.

/** The withheld supplier, the issue date and the fiscal period, labelled as a factura's buyer is. */
function subjectItems(withholding: ComputedWithholding, fonts: Fonts): BlockItem[] {
  const { subject } = withholding;
  const left = alignedFields(['Razón Social / Nombres y Apellidos:', 'Fecha de Emisión:'], fonts);
  const right = alignedFields(['Identificación:', 'Período Fiscal:'], fonts);
  return [
    { kind: 'pair', leftShare: 0.64, left: left('Razón Social / Nombres y Apellidos:', subject.name), right: right('Identificación:', subject.taxId) },
    { kind: 'pair', leftShare: 0.64, left: left('Fecha de Emisión:', formatDate(withholding.issueDate)), right: right('Período Fiscal:', withholding.fiscalPeriod), gap: 3 },
  ];
}

/** The purchase the withholdings apply to: its type and number, date, authorization and totals. */
function supportItems(withholding: ComputedWithholding, fonts: Fonts): BlockItem[] {
  const { support } = withholding;
  const left = alignedFields(['Comprobante de Sustento:', 'Número de Autorización:', 'Subtotal sin Impuestos:'], fonts);
  const right = alignedFields(['Fecha de Emisión:', 'Importe Total:'], fonts);
  return [
    { kind: 'pair', leftShare: 0.64, left: left('Comprobante de Sustento:', supportDocumentName(support.codDoc, support.numero)), right: right('Fecha de Emisión:', formatDate(support.issueDate)) },
    left('Número de Autorización:', support.authorizationNumber),
    { kind: 'pair', leftShare: 0.64, left: left('Subtotal sin Impuestos:', formatDecimal(support.totalWithoutTaxes)), right: right('Importe Total:', formatDecimal(support.grandTotal)), gap: 3 },
  ];
}

const WITHHOLDING_HEADERS = [
  'Comprobante',
  'Número',
  'Fecha Emisión',
  'Ejercicio Fiscal',
  'Base Imponible para la Retención',
  'Impuesto',
  'Código',
  'Porcentaje Retención',
  'Valor Retenido',
];
const WITHHOLDING_COLUMNS: Column[] = (() => {
  // Wide enough for "001-001-000000123" and "14/03/2025" on one line at 8 pt.
  const fixed: Column[] = [
    { width: 58, align: 'left' },
    { width: 84, align: 'center' },
    { width: 52, align: 'center' },
    { width: 50, align: 'center' },
    { width: 66, align: 'right' },
    { width: 46, align: 'center' },
    { width: 42, align: 'center' },
    { width: 58, align: 'right' },
    { width: 0, align: 'right' },
  ];
  fixed[8]!.width = CONTENT_WIDTH - fixed.reduce((w, c) => w + c.width, 0);
  return fixed;
})();

/** A row per withholding, each naming the purchase it applies to, in the SRI's columns. */
function withholdingTable(withholding: ComputedWithholding, fonts: Fonts): Table {
  const { support } = withholding;
  return {
    header: headerRow(WITHHOLDING_HEADERS, WITHHOLDING_COLUMNS, fonts),
    rows: withholding.lines.map((l) =>
      layoutRow(
        [
          { text: documentTitle(support.codDoc) },
          { text: support.numero },
          { text: formatDate(support.issueDate) },
          { text: withholding.fiscalPeriod },
          { text: formatDecimal(l.base) },
          { text: withheldTaxName(l.tax) },
          { text: l.code },
          { text: formatRate(l.rate) },
          { text: formatDecimal(l.amount) },
        ],
        WITHHOLDING_COLUMNS,
        fonts,
        BODY_SIZE,
      ),
    ),
  };
}

/** A blank row (no cells, so no frames) between two tables. */
function spacer(): Row {
  return { height: GAP, size: BODY_SIZE, cells: [] };
}

/** What a continuation page starts with: the document and issuer, and the access key. */
function continuationHeader(data: RideData, title: string, fonts: Fonts): Laid {
  return layoutBlock(
    [
      {
        kind: 'pair',
        leftShare: 0.4,
        left: { kind: 'text', text: `${title} No. ${data.numbering.numero}`, bold: true, size: 10, fit: true },
        right: { kind: 'text', text: `${data.issuer.razon_social} · R.U.C. ${data.issuer.ruc}`, size: BODY_SIZE, align: 'right' },
      },
      { kind: 'text', text: `Clave de acceso: ${data.numbering.accessKey}`, size: BODY_SIZE, gap: 2 },
    ],
    CONTENT_WIDTH,
    fonts,
  );
}

function setMetadata(doc: PDFDocument, data: RideData, title: string): void {
  const when =
    (data.authorization ? formatDateTime(data.authorization.date).instant : undefined) ??
    startOfDayInEcuador(data.document.issueDate) ??
    new Date(0);
  doc.setTitle(`${title} ${data.numbering.numero}`);
  doc.setAuthor(data.issuer.razon_social);
  doc.setSubject(`RIDE, clave de acceso ${data.numbering.accessKey}`);
  doc.setCreator('Sello');
  doc.setProducer('Sello');
  doc.setLanguage('es-EC');
  doc.setCreationDate(when);
  doc.setModificationDate(when);
}
