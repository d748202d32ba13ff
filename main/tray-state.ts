/** What the tray shows at a glance (CONTRACT §14): running, waiting for a PIN, failing. */
export interface AgentStatus {
  running: boolean;
  pendingSignatures: number;
  /** Issued comprobantes whose issuer's token waits for its PIN (CONTRACT §15). */
  pendingInvoices: number;
  failedDeliveries: number;
  tokensPresent: number;
}

export type TrayIcon = 'ok' | 'pin' | 'failures' | 'stopped';

export interface TrayState {
  icon: TrayIcon;
  tooltip: string;
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/**
 * The icon and tooltip for a status. A PIN the office must type comes first: it blocks
 * signatures; failed deliveries come next.
 *
 * @example
 *   trayStateFor({ running: true, pendingSignatures: 2, pendingInvoices: 0, failedDeliveries: 0, tokensPresent: 1 })
 *   // { icon: 'pin', tooltip: 'Sello: 2 firmas esperan el PIN' }
 */
export function trayStateFor(status: AgentStatus): TrayState {
  if (!status.running) return { icon: 'stopped', tooltip: 'Sello: detenido' };
  const signatures = status.pendingSignatures;
  const invoices = status.pendingInvoices;
  if (signatures > 0 && invoices > 0) {
    return { icon: 'pin', tooltip: `Sello: ${plural(signatures, 'firma', 'firmas')} y ${plural(invoices, 'comprobante', 'comprobantes')} esperan el PIN` };
  }
  if (signatures > 0) return { icon: 'pin', tooltip: `Sello: ${plural(signatures, 'firma espera', 'firmas esperan')} el PIN` };
  if (invoices > 0) return { icon: 'pin', tooltip: `Sello: ${plural(invoices, 'comprobante espera', 'comprobantes esperan')} el PIN` };
  if (status.failedDeliveries > 0) {
    return { icon: 'failures', tooltip: `Sello: ${plural(status.failedDeliveries, 'entrega falló', 'entregas fallaron')}` };
  }
  const tokens = status.tokensPresent > 0 ? `, ${plural(status.tokensPresent, 'token conectado', 'tokens conectados')}` : '';
  return { icon: 'ok', tooltip: `Sello: en marcha${tokens}` };
}

/** Notifications worth a person's attention between two readings of the status. */
export function notificationsFor(previous: AgentStatus | undefined, next: AgentStatus): Array<{ title: string; body: string }> {
  const out: Array<{ title: string; body: string }> = [];
  const before = previous ?? { running: true, pendingSignatures: 0, pendingInvoices: 0, failedDeliveries: 0, tokensPresent: 0 };
  if (next.pendingSignatures > before.pendingSignatures) {
    const added = next.pendingSignatures - before.pendingSignatures;
    out.push({ title: 'Firmas pendientes', body: `${plural(added, 'firma nueva espera', 'firmas nuevas esperan')} el PIN del token.` });
  }
  if (next.pendingInvoices > before.pendingInvoices) {
    const added = next.pendingInvoices - before.pendingInvoices;
    out.push({
      title: 'Comprobantes esperan el PIN',
      body: `${plural(added, 'comprobante nuevo espera', 'comprobantes nuevos esperan')} el PIN del token del emisor para firmarse y enviarse al SRI.`,
    });
  }
  if (next.failedDeliveries > before.failedDeliveries) {
    const added = next.failedDeliveries - before.failedDeliveries;
    out.push({ title: 'Webhooks con fallas', body: `${plural(added, 'entrega falló', 'entregas fallaron')} después de todos los reintentos.` });
  }
  return out;
}
