import type { AgentStatus } from './tray-state.js';

/**
 * Reads the tray's status from the admin API, as the UI does: pending token
 * signatures and failed deliveries. The tray talks to the core over HTTP only.
 */
export async function readAgentStatus(baseUrl: string, adminToken: string, fetchImpl: typeof fetch = fetch): Promise<AgentStatus> {
  const get = async (path: string): Promise<unknown> => {
    const res = await fetchImpl(`${baseUrl}${path}`, { headers: { Authorization: `Bearer ${adminToken}` } });
    if (!res.ok) throw new Error(`${path}: ${res.status}`);
    return res.json();
  };
  const [pending, failed] = await Promise.all([get('/admin/api/signing/pending'), get('/admin/api/deliveries?state=failed')]);
  return {
    running: true,
    pendingSignatures: countOf(pending),
    failedDeliveries: countOf(failed),
    tokensPresent: tokensOf(pending),
  };
}

function countOf(body: unknown): number {
  const data = (body as { data?: unknown }).data;
  if (Array.isArray(data)) {
    // Pending signatures come grouped by token, each with its signatures.
    return data.reduce<number>((n, item) => {
      const signatures = (item as { signatures?: unknown[] }).signatures;
      return n + (Array.isArray(signatures) ? signatures.length : 1);
    }, 0);
  }
  return 0;
}

function tokensOf(body: unknown): number {
  const data = (body as { data?: unknown }).data;
  return Array.isArray(data) ? data.filter((g) => (g as { token?: { present?: boolean } | null }).token?.present === true).length : 0;
}
