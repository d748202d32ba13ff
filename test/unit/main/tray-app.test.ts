import { describe, expect, it } from 'vitest';
import { startTrayApp, type TrayAgent } from '../../../main/tray-app.js';
import type { AgentStatus } from '../../../main/tray-state.js';
import { createFakeElectron } from '../../fakes/electron.js';

const icons = { ok: 'ok.png', pin: 'pin.png', failures: 'failures.png', stopped: 'stopped.png' };

function fakeAgent(statuses: AgentStatus[]): TrayAgent & { stopped: number } {
  let i = 0;
  const agent = {
    baseUrl: 'http://127.0.0.1:8437',
    adminUrl: 'http://127.0.0.1:8437/ui/?token=abc',
    stopped: 0,
    status: async () => statuses[Math.min(i++, statuses.length - 1)]!,
    stop: async () => void agent.stopped++,
  };
  return agent;
}

const ok: AgentStatus = { running: true, pendingSignatures: 0, pendingInvoices: 0, failedDeliveries: 0, tokensPresent: 1 };

describe('startTrayApp', () => {
  it('quits at once when another instance runs, without starting a second agent', async () => {
    const electron = createFakeElectron({ singleInstance: false });
    let started = 0;
    const app = await startTrayApp(electron, { icons, startAgent: async () => (started++, fakeAgent([ok])) });
    expect(app).toBeNull();
    expect(electron.quitCalls).toBe(1);
    expect(started).toBe(0);
    expect(electron.trays).toHaveLength(0);
  });

  it('follows the status with the icon and notifies new pending PINs once', async () => {
    const electron = createFakeElectron();
    const agent = fakeAgent([ok, { ...ok, pendingSignatures: 2 }, { ...ok, pendingSignatures: 2 }, { ...ok, failedDeliveries: 1 }]);
    const app = (await startTrayApp(electron, { icons, startAgent: async () => agent, pollMs: 60_000 }))!;
    const tray = electron.trays[0]!;
    expect(tray.image).toBe('ok.png');
    await app.refresh();
    expect(tray.image).toBe('pin.png');
    expect(tray.tooltip).toBe('Sello: 2 firmas esperan el PIN');
    await app.refresh();
    expect(electron.notifications.filter((n) => n.title === 'Firmas pendientes')).toHaveLength(1);
    await app.refresh();
    expect(tray.image).toBe('failures.png');
    expect(electron.notifications.map((n) => n.title)).toEqual(['Firmas pendientes', 'Webhooks con fallas']);
    await app.quit();
  });

  it('shows a stopped icon when the agent does not answer', async () => {
    const electron = createFakeElectron();
    const agent = fakeAgent([ok]);
    agent.status = async () => {
      throw new Error('ECONNREFUSED');
    };
    await startTrayApp(electron, { icons, startAgent: async () => agent, pollMs: 60_000 });
    expect(electron.trays[0]!.image).toBe('stopped.png');
  });

  it('opens the UI with the one-time URL first, then the plain UI, in a locked-down window', async () => {
    const electron = createFakeElectron();
    const app = (await startTrayApp(electron, { icons, startAgent: async () => fakeAgent([ok]), pollMs: 60_000 }))!;
    electron.trays[0]!.click();
    await new Promise((r) => setImmediate(r));
    const first = electron.windows[0]!;
    expect(first.loaded).toEqual(['http://127.0.0.1:8437/ui/?token=abc']);
    expect(first.options.webPreferences).toEqual({
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      spellcheck: false,
    });
    expect(first.navigate('http://127.0.0.1:8437/ui/webhooks')).toBe(true);
    expect(first.navigate('https://evil.example/')).toBe(false);
    expect(first.open('https://docs.example/ayuda')).toBe('deny');
    expect(electron.opened).toEqual(['https://docs.example/ayuda']);
    expect(first.open('file:///etc/passwd')).toBe('deny');
    expect(electron.opened).toHaveLength(1);

    // A second instance brings the same window forward; after closing it, a new one opens the plain UI.
    electron.emit('second-instance');
    await new Promise((r) => setImmediate(r));
    expect(electron.windows).toHaveLength(1);
    expect(first.shown).toBe(2);
    first.close();
    await app.openWindow();
    expect(electron.windows[1]!.loaded).toEqual(['http://127.0.0.1:8437/ui/']);
    await app.quit();
  });

  it('toggles start at login from the tray menu', async () => {
    const electron = createFakeElectron();
    const app = (await startTrayApp(electron, { icons, startAgent: async () => fakeAgent([ok]), pollMs: 60_000 }))!;
    const item = () => electron.trays[0]!.menu.find((m) => m.label === 'Iniciar con el sistema')!;
    expect(item().checked).toBe(false);
    item().click!();
    expect(electron.loginItem.openAtLogin).toBe(true);
    expect(item().checked).toBe(true);
    await app.quit();
  });

  it('shows where updates come from as a greyed-out line of the menu', async () => {
    const electron = createFakeElectron();
    const app = (await startTrayApp(electron, { icons, startAgent: async () => fakeAgent([ok]), pollMs: 60_000, updatesLabel: 'Actualizaciones: desactivadas (sin SELLO_UPDATE_FEED_URL)' }))!;
    expect(electron.trays[0]!.menu.find((m) => m.label.startsWith('Actualizaciones'))).toEqual({ label: 'Actualizaciones: desactivadas (sin SELLO_UPDATE_FEED_URL)', enabled: false });
    await app.quit();
  });

  it('stops the agent once when quitting, from the menu or the app', async () => {
    const electron = createFakeElectron();
    const agent = fakeAgent([ok]);
    await startTrayApp(electron, { icons, startAgent: async () => agent, pollMs: 60_000 });
    electron.trays[0]!.menu.find((m) => m.label === 'Salir')!.click!();
    electron.emit('before-quit');
    await new Promise((r) => setImmediate(r));
    expect(agent.stopped).toBe(1);
    expect(electron.trays[0]!.destroyed).toBe(true);
  });
});
