import type { AgentStatus } from './tray-state.js';

interface StatusBody {
  data: { pending_signatures: number; pending_invoices?: number; failed_deliveries: number; tokens: Array<{ present: boolean }> };
}

/**
 * Reads the tray's status from the admin API's `GET /admin/api/status`, the same route
 * the Estado screen shows: the tray talks to the core over HTTP only.
 */
export async function readAgentStatus(baseUrl: string, adminToken: string, fetchImpl: typeof fetch = fetch): Promise<AgentStatus> {
  const res = await fetchImpl(`${baseUrl}/admin/api/status`, { headers: { Authorization: `Bearer ${adminToken}` } });
  if (!res.ok) throw new Error(`/admin/api/status: ${res.status}`);
  const { data } = (await res.json()) as StatusBody;
  return {
    running: true,
    pendingSignatures: data.pending_signatures,
    pendingInvoices: data.pending_invoices ?? 0,
    failedDeliveries: data.failed_deliveries,
    tokensPresent: data.tokens.filter((t) => t.present).length,
  };
}
