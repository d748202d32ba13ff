/**
 * The Electron entry point: the only module that imports `electron` (ENGINEERING.md).
 * Everything else takes the Electron API as a parameter and is tested with a fake.
 */
import fs from 'node:fs';
import path from 'node:path';
import electron from 'electron';
import electronUpdater from 'electron-updater';
import { startAgent } from '../core/app.js';
import { loadConfig } from '../core/config.js';
import { projectRoot } from '../core/paths.js';
import type { ElectronApi } from './electron-api.js';
import { readAgentStatus } from './agent-status.js';
import { startTrayApp } from './tray-app.js';
import { configureUpdates, updateSettingsFrom, updatesLabel } from './updates.js';

const resources = path.join(projectRoot, 'resources');

const api: ElectronApi = {
  app: electron.app,
  createTray(icon) {
    const tray = new electron.Tray(icon);
    return {
      setImage: (i) => tray.setImage(i),
      setToolTip: (t) => tray.setToolTip(t),
      setContextMenu: (items) => tray.setContextMenu(electron.Menu.buildFromTemplate(items)),
      on: (event, listener) => void tray.on(event, listener),
      destroy: () => tray.destroy(),
    };
  },
  createWindow: (options) => new electron.BrowserWindow(options),
  notify: (title, body) => new electron.Notification({ title, body }).show(),
  openExternal: (url) => electron.shell.openExternal(url),
  safeStorage: electron.safeStorage,
};

/** The installer's update feed, if `npm run dist` was given one (electron-builder's app-update.yml). */
function packagedFeed(): string | undefined {
  if (!electron.app.isPackaged) return undefined;
  try {
    return fs.readFileSync(path.join(process.resourcesPath, 'app-update.yml'), 'utf8');
  } catch {
    return undefined;
  }
}

const updates = updateSettingsFrom(process.env, packagedFeed());

const tray = await startTrayApp(api, {
  async startAgent() {
    const agent = await startAgent(loadConfig());
    return {
      // Plain loopback HTTP even when Sello also serves HTTPS to the LAN: the window and the
      // status polls need no certificate (CONTRACT §2).
      baseUrl: agent.localUrl,
      adminUrl: agent.adminUrl,
      status: () => readAgentStatus(agent.localUrl, agent.adminToken),
      stop: () => agent.stop(),
    };
  },
  icons: {
    ok: path.join(resources, 'tray-ok.png'),
    pin: path.join(resources, 'tray-pin.png'),
    failures: path.join(resources, 'tray-failures.png'),
    stopped: path.join(resources, 'tray-stopped.png'),
  },
  updatesLabel: updatesLabel(updates),
});

// A second instance (null: it handed over to the first and quits) checks nothing.
if (tray) {
  configureUpdates(electronUpdater.autoUpdater, updates, (err) => {
    process.stderr.write(`${JSON.stringify({ level: 'warn', msg: 'update check failed', err: String(err) })}\n`);
  });
}
