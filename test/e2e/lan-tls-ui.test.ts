/**
 * The Estado screen of an agent that serves HTTPS beyond loopback shows the certificate's
 * fingerprint, the local CA and its names (CONTRACT §2, §14), in Spanish and in English.
 *
 * The agent listens on 127.0.0.2: another address than 127.0.0.1, so Sello takes it for a LAN
 * address and serves HTTPS there, without the network namespace that lan-tls.test.ts needs for a
 * real non-loopback peer; what this test looks at is only the screen, opened on this machine's
 * plain loopback URL as the tray opens it.
 */
import fs from 'node:fs';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, tempDir, type TestAgent } from '../helpers/agent.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let agent: TestAgent;
let context: BrowserContext;
let profileDir: string;

beforeAll(async () => {
  agent = await startTestAgent({ host: '127.0.0.2' });
  profileDir = tempDir('sello-chromium-');
  context = await chromium.launchPersistentContext(profileDir, { executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS, headless: true, locale: 'es-EC' });
}, 60_000);

afterAll(async () => {
  await context?.close();
  await agent?.close();
  if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
});

describe('Estado on a LAN agent', () => {
  it('shows the TLS fingerprint, the local CA and the certificate names', async () => {
    const tls = agent.tls()!;
    expect(agent.baseUrl).toMatch(/^https:\/\/127\.0\.0\.2:/);
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(agent.adminUrl);
    await page.goto(`${agent.localUrl}/ui/#/estado`);
    const fingerprint = page.getByTestId('tls-fingerprint');
    await fingerprint.waitFor();
    expect(await fingerprint.textContent()).toBe(tls.fingerprint);
    const facts = (await page.locator('dl.facts').textContent()) ?? '';
    expect(facts).toContain('Huella SHA-256 del certificado TLS');
    expect(facts).toContain(tls.caFile!);
    expect(facts).toContain(agent.baseUrl);
    expect(facts).toContain(agent.localUrl);

    await page.selectOption('#lang', 'en');
    await page.reload();
    await page.getByTestId('tls-fingerprint').waitFor();
    expect(await page.locator('dl.facts').textContent()).toContain('TLS certificate SHA-256 fingerprint');
  });
});
