import type { ElectronApi, TrayLike, WindowLike } from './electron-api.js';
import { notificationsFor, trayStateFor, type AgentStatus, type TrayIcon } from './tray-state.js';
import { lockDownNavigation, mainWindowOptions } from './window.js';

/** What the tray needs of the running core. */
export interface TrayAgent {
  baseUrl: string;
  /**
   * The one-time admin URL: loading it in the window trades its token for the
   * HttpOnly session cookie (CONTRACT §14), which then stays in the window's session.
   */
  adminUrl: string;
  status(): Promise<AgentStatus>;
  stop(): Promise<void>;
}

export interface TrayAppDeps {
  startAgent(): Promise<TrayAgent>;
  icons: Record<TrayIcon, string>;
  /** How often the tray reads the status; 5 s by default. */
  pollMs?: number;
  /** A line of information in the menu about updates (main/updates.ts `updatesLabel`). */
  updatesLabel?: string;
}

export interface TrayApp {
  openWindow(): Promise<void>;
  refresh(): Promise<void>;
  quit(): Promise<void>;
}

/**
 * The tray application (CONTRACT §14): one instance, the core started in-process, a
 * tray icon that follows the status, notifications for new pending PINs and failed
 * deliveries, and the admin UI in a locked-down window. Returns null when another
 * instance already runs (that one shows its window instead).
 */
export async function startTrayApp(electron: ElectronApi, deps: TrayAppDeps): Promise<TrayApp | null> {
  const { app } = electron;
  if (!app.requestSingleInstanceLock()) {
    app.quit();
    return null;
  }
  await app.whenReady();
  const agent = await deps.startAgent();
  const tray: TrayLike = electron.createTray(deps.icons.ok);
  let window: WindowLike | undefined;
  let sessionOpened = false;
  let previous: AgentStatus | undefined;
  const polling: { timer?: NodeJS.Timeout } = {};
  let quitting = false;

  const openWindow = async (): Promise<void> => {
    if (window && !window.isDestroyed()) {
      window.show();
      window.focus();
      return;
    }
    const win = electron.createWindow(mainWindowOptions());
    window = win;
    win.on('closed', () => {
      if (window === win) window = undefined;
    });
    lockDownNavigation(win.webContents, new URL(agent.baseUrl).origin, (url) => void electron.openExternal(url));
    // The one-time URL only the first time: afterwards the session cookie is already set.
    await win.loadURL(sessionOpened ? `${agent.baseUrl}/ui/` : agent.adminUrl);
    sessionOpened = true;
    win.show();
  };

  const quit = async (): Promise<void> => {
    if (quitting) return;
    quitting = true;
    if (polling.timer) clearInterval(polling.timer);
    tray.destroy();
    await agent.stop();
    app.quit();
  };

  const menu = () => [
    { label: 'Abrir Sello', click: () => void openWindow() },
    {
      label: 'Iniciar con el sistema',
      type: 'checkbox' as const,
      checked: app.getLoginItemSettings().openAtLogin,
      click: () => {
        app.setLoginItemSettings({ openAtLogin: !app.getLoginItemSettings().openAtLogin });
        tray.setContextMenu(menu());
      },
    },
    ...(deps.updatesLabel ? [{ label: deps.updatesLabel, enabled: false }] : []),
    { label: '', type: 'separator' as const },
    { label: 'Salir', click: () => void quit() },
  ];

  const refresh = async (): Promise<void> => {
    let status: AgentStatus;
    try {
      status = await agent.status();
    } catch {
      status = { running: false, pendingSignatures: 0, pendingInvoices: 0, failedDeliveries: 0, tokensPresent: 0 };
    }
    const state = trayStateFor(status);
    tray.setImage(deps.icons[state.icon]);
    tray.setToolTip(state.tooltip);
    for (const n of notificationsFor(previous, status)) electron.notify(n.title, n.body);
    previous = status;
  };

  app.on('second-instance', () => void openWindow());
  // Closing the window leaves Sello running in the tray.
  app.on('window-all-closed', () => undefined);
  app.on('before-quit', () => void quit());
  tray.on('click', () => void openWindow());
  tray.setContextMenu(menu());
  await refresh();
  if (!quitting) {
    polling.timer = setInterval(() => void refresh(), deps.pollMs ?? 5_000);
    polling.timer.unref?.();
  }

  return { openWindow, refresh, quit };
}
