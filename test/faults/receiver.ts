/**
 * The HTTPS receiver of the faults suite (test/helpers/receiver.ts underneath): every request
 * is tagged with the epoch of the `sello serve` process that was running when it arrived,
 * and a `behaviour` decides per Webhook-Id and try how to misbehave (hang, reset, slow).
 */
import crypto from 'node:crypto';
import { startReceiver, type Receiver, type Reply } from '../helpers/receiver.js';
import type { TestPki } from '../helpers/test-ca.js';
import type { SelloUnderTest } from './harness.js';

export interface Receipt {
  webhookId: string;
  epoch: number;
  /** 0 for the first request with this Webhook-Id, 1 for the second… */
  nth: number;
  rawBody: Buffer;
  headers: Record<string, string | string[] | undefined>;
  receivedAt: number;
  /** Set when the receiver answered (a hang or reset leaves it undefined). */
  answered?: number;
}

/** How to answer the `nth` request carrying `webhookId`. */
export type Behaviour = (webhookId: string, nth: number) => Reply;

export interface FaultReceiver {
  url: string;
  receipts: Receipt[];
  setBehaviour(b: Behaviour): void;
  /** Webhook-Ids answered 2xx at least once. */
  confirmed(): Set<string>;
  close(): Promise<void>;
}

export const alwaysOk: Behaviour = () => ({ status: 200 });

export async function startFaultReceiver(pki: TestPki, sello: Pick<SelloUnderTest, 'epoch'>, behaviour: Behaviour = alwaysOk): Promise<FaultReceiver> {
  const receipts: Receipt[] = [];
  const tries = new Map<string, number>();
  let decide = behaviour;
  const receiver: Receiver = await startReceiver(pki, {
    script: (req) => {
      const nth = tries.get(req.webhookId) ?? 0;
      tries.set(req.webhookId, nth + 1);
      const receipt: Receipt = { webhookId: req.webhookId, epoch: sello.epoch, nth, rawBody: req.rawBody, headers: req.headers, receivedAt: req.receivedAt };
      receipts.push(receipt);
      const reply = decide(req.webhookId, nth);
      // The helper sets `answered` on its own record only; mirror it when the answer goes out.
      if ('status' in reply) {
        const delay = reply.delayMs ?? 0;
        setTimeout(() => (receipt.answered = reply.status), delay);
      }
      return reply;
    },
  });
  return {
    url: receiver.url,
    receipts,
    setBehaviour(b) {
      decide = b;
    },
    confirmed() {
      return new Set(receipts.filter((r) => r.answered !== undefined && r.answered >= 200 && r.answered < 300).map((r) => r.webhookId));
    },
    close: () => receiver.close(),
  };
}

/** `X-Service-Signature` as docs/webhooks.md tells a receiver to check it. */
export function signatureOk(receipt: Receipt, secret: string): boolean {
  const expected = `sha256=${crypto.createHmac('sha256', secret).update(receipt.rawBody).digest('hex')}`;
  const header = String(receipt.headers['x-service-signature'] ?? '');
  return header.length === expected.length && crypto.timingSafeEqual(Buffer.from(header), Buffer.from(expected));
}
