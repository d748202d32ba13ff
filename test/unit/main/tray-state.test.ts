import { describe, expect, it } from 'vitest';
import { notificationsFor, trayStateFor, type AgentStatus } from '../../../main/tray-state.js';

const base: AgentStatus = { running: true, pendingSignatures: 0, pendingInvoices: 0, failedDeliveries: 0, tokensPresent: 0 };

describe('trayStateFor', () => {
  it('is ok when nothing waits, naming the tokens present', () => {
    expect(trayStateFor(base)).toEqual({ icon: 'ok', tooltip: 'Sello: en marcha' });
    expect(trayStateFor({ ...base, tokensPresent: 1 }).tooltip).toBe('Sello: en marcha, 1 token conectado');
  });

  it('puts a pending PIN before failed deliveries', () => {
    expect(trayStateFor({ ...base, pendingSignatures: 2, failedDeliveries: 3 })).toEqual({ icon: 'pin', tooltip: 'Sello: 2 firmas esperan el PIN' });
    expect(trayStateFor({ ...base, pendingSignatures: 1 }).tooltip).toBe('Sello: 1 firma espera el PIN');
    expect(trayStateFor({ ...base, failedDeliveries: 1 })).toEqual({ icon: 'failures', tooltip: 'Sello: 1 entrega falló' });
  });

  it('says which comprobantes wait for a token PIN, beside the signatures', () => {
    expect(trayStateFor({ ...base, pendingInvoices: 1, failedDeliveries: 2 })).toEqual({ icon: 'pin', tooltip: 'Sello: 1 comprobante espera el PIN' });
    expect(trayStateFor({ ...base, pendingInvoices: 3 }).tooltip).toBe('Sello: 3 comprobantes esperan el PIN');
    expect(trayStateFor({ ...base, pendingSignatures: 1, pendingInvoices: 2 })).toEqual({ icon: 'pin', tooltip: 'Sello: 1 firma y 2 comprobantes esperan el PIN' });
  });

  it('shows a stopped agent', () => {
    expect(trayStateFor({ ...base, running: false, pendingSignatures: 4 }).icon).toBe('stopped');
  });
});

describe('notificationsFor', () => {
  it('notifies new pending PINs and new failures, not the ones already known', () => {
    expect(notificationsFor(undefined, { ...base, pendingSignatures: 1 })).toEqual([{ title: 'Firmas pendientes', body: '1 firma nueva espera el PIN del token.' }]);
    expect(notificationsFor({ ...base, pendingSignatures: 1 }, { ...base, pendingSignatures: 1 })).toEqual([]);
    expect(notificationsFor({ ...base, failedDeliveries: 2 }, { ...base, failedDeliveries: 5 })).toEqual([
      { title: 'Webhooks con fallas', body: '3 entregas fallaron después de todos los reintentos.' },
    ]);
    expect(notificationsFor({ ...base, pendingSignatures: 3 }, { ...base, pendingSignatures: 1 })).toEqual([]);
    expect(notificationsFor({ ...base, pendingInvoices: 1 }, { ...base, pendingInvoices: 3 })).toEqual([
      { title: 'Comprobantes esperan el PIN', body: '2 comprobantes nuevos esperan el PIN del token del emisor para firmarse y enviarse al SRI.' },
    ]);
    expect(notificationsFor({ ...base, pendingInvoices: 2 }, { ...base, pendingInvoices: 0 })).toEqual([]);
  });
});
