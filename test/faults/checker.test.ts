/**
 * The checker checked: given receiver logs that break the delivery promise (CONTRACT §9), it
 * says so; given ones the promise allows (an attempt in flight at a kill, sent again by the
 * next process), it does not.
 */
import { describe, expect, it } from 'vitest';
import { judgeDeliveries, renderTable } from './checker.js';
import type { Receipt } from './receiver.js';

const receipt = (webhookId: string, epoch: number, answered?: number): Receipt => ({
  webhookId,
  epoch,
  nth: 0,
  rawBody: Buffer.from('{}'),
  headers: {},
  receivedAt: 0,
  ...(answered === undefined ? {} : { answered }),
});

describe('judgeDeliveries', () => {
  it('passes every event confirmed once, and a repeat of an attempt in flight at a kill', () => {
    const v = judgeDeliveries(
      ['a', 'b'],
      [receipt('a', 0, 200), receipt('b', 0, 200), receipt('b', 1, 200)],
      // Process 0 died before recording b's 2xx: the next one sends it again, as promised.
      new Map([[0, new Set(['a'])]]),
    );
    expect(v).toMatchObject({ lost: [], resentAfterConfirmed: [], unexpected: [], confirmed: 2 });
  });

  it('flags an event never confirmed, and retries that never got a 2xx', () => {
    const v = judgeDeliveries(['a', 'b'], [receipt('a', 0, 500), receipt('a', 0, 500), receipt('b', 0, 200)], new Map());
    expect(v.lost).toEqual(['a']);
    expect(v.confirmed).toBe(1);
  });

  it('flags a delivery recorded as delivered when its process died and sent again by the next', () => {
    const v = judgeDeliveries(['a'], [receipt('a', 0, 200), receipt('a', 2, 200)], new Map([[0, new Set(['a'])]]));
    expect(v.resentAfterConfirmed).toEqual(['a sent by process 2 though recorded delivered before']);
  });

  it('flags a delivery sent again by the same process after a 2xx', () => {
    const v = judgeDeliveries(['a'], [receipt('a', 1, 204), receipt('a', 1, 200)], new Map());
    expect(v.resentAfterConfirmed).toEqual(['a sent again by process 1 after a 2xx']);
  });

  it('flags what nobody expected', () => {
    expect(judgeDeliveries(['a'], [receipt('a', 0, 200), receipt('z', 0, 200)], new Map()).unexpected).toEqual(['z']);
  });
});

describe('renderTable', () => {
  it('prints one row per scenario, dashes for what a scenario does not count, notes under it', () => {
    const table = renderTable([
      {
        scenario: 'uno',
        faults: 'kill -9 × 20',
        restarts: 20,
        check: { expected: { events: 4, files: 2 }, found: { events: 4, files: 2 }, lost: { events: 0, files: 0 }, duplicated: { events: 0, files: 0 }, problems: [] },
        result: 'ok',
        seconds: 12,
        notes: ['algo que leer'],
      },
      { scenario: 'dos', faults: 'none', restarts: 0, check: { expected: {}, found: {}, lost: {}, duplicated: {}, problems: ['tmpfs not mounted'] }, result: 'skipped' },
    ]);
    expect(table.split('\n')).toEqual([
      '| scenario | faults injected | restarts | expected (events / signatures / files) | found | lost | duplicated | result |',
      '|---|---|---:|---|---|---|---|---|',
      '| uno | kill -9 × 20 | 20 | 4 / – / 2 | 4 / – / 2 | 0 / – / 0 | 0 / – / 0 | ok (12 s) |',
      '| dos | none | 0 | – | – | – | – | skipped: tmpfs not mounted |',
      '',
      '- uno: algo que leer',
    ]);
  });
});
