import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEndpoint, jsonApiHeaders, startTestAgent, type TestAgent } from '../helpers/agent.js';

describe('test agent', () => {
  let agent: TestAgent;
  beforeAll(async () => {
    agent = await startTestAgent();
  });
  afterAll(() => agent.close());

  it('creates and lists an endpoint', async () => {
    const { id } = await createEndpoint(agent, agent.liveKey);
    const res = await agent.fetch('/api/v1/webhook-endpoints', { headers: jsonApiHeaders(agent.liveKey) });
    const body = (await res.json()) as { data: Array<{ id: string }> };
    expect(body.data.map((d) => d.id)).toEqual([id]);
  });
});
