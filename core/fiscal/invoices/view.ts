/**
 * `GET /api/v1/invoices/:id`: the §6 document view, the invoice as Sello computed it (snake_case,
 * as the API speaks; amounts as decimal strings) and where its submission to the SRI stands, so
 * that an ERP sees why an invoice still waits (the SRI down, a token without its PIN…).
 */
import type { FiscalSubmissionsTable } from '../../db/index.js';
import type { DocumentView } from '../../documents/index.js';
import type { ComputedCreditNote, ComputedDebitNote, ComputedInvoice, ComputedPurchaseSettlement, ComputedRemissionGuide, ComputedWithholding, Customer, GuideParty, ModifiedDocument, TaxAmount } from '../sri/index.js';

function taxJson(t: TaxAmount) {
  return { type: t.type, code: t.codigo, rate_code: t.codigoPorcentaje, rate: t.tarifa, base: t.baseImponible, amount: t.valor };
}

/** A customer (or a liquidación's supplier) as the API shows it. */
function customerJson(c: Customer) {
  return { ...partyJson(c), email: c.email ?? null, address: c.address ?? null, phone: c.phone ?? null };
}

/** The computed invoice as the API shows it. */
export function invoiceJson(invoice: ComputedInvoice) {
  return {
    issue_date: invoice.issueDate,
    establishment: invoice.establishment,
    emission_point: invoice.emissionPoint,
    currency: invoice.currency,
    customer: customerJson(invoice.customer),
    lines: invoice.lines.map((l) => ({
      code: l.code,
      description: l.description,
      quantity: l.quantity,
      unit_price: l.unitPrice,
      discount: l.discount,
      subtotal: l.subtotal,
      taxes: l.taxes.map(taxJson),
    })),
    subtotal: invoice.totalWithoutTaxes,
    total_discount: invoice.totalDiscount,
    taxes: invoice.taxTotals.map(taxJson),
    tip: invoice.tip,
    grand_total: invoice.grandTotal,
    payments: invoice.payments.map((p) => ({ method: p.method, amount: p.amount, term: p.term ?? null, unit: p.unit ?? null })),
    additional_info: invoice.additionalInfo,
  };
}

/** Where the submission stands: its state, tries, next try and last problem (Spanish). */
export function submissionJson(s: FiscalSubmissionsTable) {
  return {
    state: s.state,
    attempts: s.attempts,
    next_attempt_at: s.due_at !== null ? new Date(s.due_at).toISOString() : null,
    unreachable_since: s.unreachable_since,
    last_error: s.last_error || null,
  };
}

export function invoiceView(document: DocumentView, submission: FiscalSubmissionsTable) {
  return { ...document, invoice: invoiceJson(JSON.parse(submission.computed) as ComputedInvoice), sri: submissionJson(submission) };
}

/** The computed credit note as the API shows it: the invoice's fields without payments and tip, the invoice it modifies and why. */
export function creditNoteJson(note: ComputedCreditNote) {
  const { payments: _payments, tip: _tip, ...sale } = invoiceJson({ ...note, payments: [], tip: '0.00' });
  return {
    ...sale,
    modified: modifiedJson(note.modified),
    reason: note.reason,
  };
}

function modifiedJson(m: ModifiedDocument) {
  return { doc_type: 'invoice', numero: m.numero, issue_date: m.issueDate, invoice_id: m.documentId };
}

/** The computed debit note as the API shows it. */
export function debitNoteJson(note: ComputedDebitNote) {
  return {
    issue_date: note.issueDate,
    establishment: note.establishment,
    emission_point: note.emissionPoint,
    currency: note.currency,
    customer: customerJson(note.customer),
    reasons: note.reasons.map((r) => ({ reason: r.reason, amount: r.amount, taxes: r.taxes.map(taxJson) })),
    subtotal: note.totalWithoutTaxes,
    taxes: note.taxTotals.map(taxJson),
    grand_total: note.grandTotal,
    payments: note.payments.map((p) => ({ method: p.method, amount: p.amount, term: p.term ?? null, unit: p.unit ?? null })),
    additional_info: note.additionalInfo,
    modified: modifiedJson(note.modified),
  };
}

/** `GET /api/v1/debit-notes/:id`: as invoiceView, under `debit_note`. */
export function debitNoteView(document: DocumentView, submission: FiscalSubmissionsTable) {
  return { ...document, debit_note: debitNoteJson(JSON.parse(submission.computed) as ComputedDebitNote), sri: submissionJson(submission) };
}

/** `GET /api/v1/credit-notes/:id`: as invoiceView, under `credit_note`. */
export function creditNoteView(document: DocumentView, submission: FiscalSubmissionsTable) {
  return { ...document, credit_note: creditNoteJson(JSON.parse(submission.computed) as ComputedCreditNote), sri: submissionJson(submission) };
}

/** The computed purchase settlement as the API shows it: an invoice's fields, the party under `supplier`, no tip. */
export function purchaseSettlementJson(settlement: ComputedPurchaseSettlement) {
  const { customer, tip: _tip, ...sale } = invoiceJson({ ...settlement, customer: settlement.supplier, tip: '0.00' });
  return { ...sale, supplier: customer };
}

/** `GET /api/v1/purchase-settlements/:id`: as invoiceView, under `purchase_settlement`. */
export function purchaseSettlementView(document: DocumentView, submission: FiscalSubmissionsTable) {
  return { ...document, purchase_settlement: purchaseSettlementJson(JSON.parse(submission.computed) as ComputedPurchaseSettlement), sri: submissionJson(submission) };
}

function partyJson(p: GuideParty) {
  return { name: p.name, tax_id: p.taxId, tax_id_type: p.idType, sri_id_code: p.idTypeCode };
}

/** The computed remission guide as the API shows it. */
export function remissionGuideJson(guide: ComputedRemissionGuide) {
  return {
    issue_date: guide.issueDate,
    establishment: guide.establishment,
    emission_point: guide.emissionPoint,
    departure_address: guide.departureAddress,
    carrier: partyJson(guide.carrier),
    plate: guide.plate,
    transport_start: guide.transportStart,
    transport_end: guide.transportEnd,
    recipients: guide.recipients.map((r) => ({
      ...partyJson(r),
      address: r.address,
      reason: r.reason,
      route: r.route ?? null,
      customs_document: r.customsDocument ?? null,
      destination_establishment: r.destinationEstablishment ?? null,
      support_document: r.supportDocument
        ? { type: r.supportDocument.codDoc, numero: r.supportDocument.numero, issue_date: r.supportDocument.issueDate, authorization_number: r.supportDocument.authorizationNumber ?? null, invoice_id: r.supportDocument.documentId }
        : null,
      goods: r.goods.map((g) => ({ code: g.code, additional_code: g.additionalCode ?? null, description: g.description, quantity: g.quantity })),
    })),
    additional_info: guide.additionalInfo,
  };
}

/** `GET /api/v1/remission-guides/:id`: as invoiceView, under `remission_guide`. */
export function remissionGuideView(document: DocumentView, submission: FiscalSubmissionsTable) {
  return { ...document, remission_guide: remissionGuideJson(JSON.parse(submission.computed) as ComputedRemissionGuide), sri: submissionJson(submission) };
}

/** The computed withholding as the API shows it: the withheld supplier, the purchase it applies to and each withholding. */
export function withholdingJson(w: ComputedWithholding) {
  const s = w.support;
  return {
    issue_date: w.issueDate,
    establishment: w.establishment,
    emission_point: w.emissionPoint,
    currency: w.currency,
    fiscal_period: w.fiscalPeriod,
    subject: { ...partyJson(w.subject), related_party: w.subject.relatedParty },
    purchase: {
      purchase_id: s.purchaseId,
      support_code: s.supportCode,
      doc_type: s.codDoc === '01' ? 'invoice' : s.codDoc,
      numero: s.numero,
      issue_date: s.issueDate,
      access_key: s.authorizationNumber,
      subtotal: s.totalWithoutTaxes,
      grand_total: s.grandTotal,
      taxes: s.taxes.map((t) => ({ code: t.codigo, rate_code: t.codigoPorcentaje, rate: t.tarifa, base: t.baseImponible, amount: t.valor })),
      payments: s.payments,
    },
    lines: w.lines.map((l) => ({ tax: l.tax, code: l.code, base: l.base, rate: l.rate, amount: l.amount })),
    total_withheld: w.totalWithheld,
    additional_info: w.additionalInfo,
  };
}

/** `GET /api/v1/withholdings/:id`: as invoiceView, under `withholding`. */
export function withholdingView(document: DocumentView, submission: FiscalSubmissionsTable) {
  return { ...document, withholding: withholdingJson(JSON.parse(submission.computed) as ComputedWithholding), sri: submissionJson(submission) };
}
