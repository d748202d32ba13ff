import type { ElectronApi, MenuItem, TrayLike, WebContentsLike, WindowLike, WindowOptions } from '../../main/electron-api.js';

/** A fake of the Electron slice Sello uses: records what the tray app did. */
export interface FakeElectron extends ElectronApi {
  singleInstance: boolean;
  quitCalls: number;
  loginItem: { openAtLogin: boolean };
  trays: FakeTray[];
  windows: FakeWindow[];
  notifications: Array<{ title: string; body: string }>;
  opened: string[];
  emit(event: 'second-instance' | 'window-all-closed' | 'before-quit'): void;
}

export interface FakeTray extends TrayLike {
  image: string;
  tooltip: string;
  menu: MenuItem[];
  destroyed: boolean;
  click(): void;
}

export interface FakeWindow extends WindowLike {
  options: WindowOptions;
  loaded: string[];
  shown: number;
  destroyed: boolean;
  close(): void;
  navigate(url: string): boolean;
  open(url: string): 'deny' | 'allow';
}

export function createFakeElectron(options: { singleInstance?: boolean; encryption?: boolean } = {}): FakeElectron {
  const listeners = new Map<string, Array<() => void>>();
  const fake: FakeElectron = {
    singleInstance: options.singleInstance ?? true,
    quitCalls: 0,
    loginItem: { openAtLogin: false },
    trays: [],
    windows: [],
    notifications: [],
    opened: [],
    emit(event) {
      for (const l of listeners.get(event) ?? []) l();
    },
    app: {
      requestSingleInstanceLock: () => fake.singleInstance,
      on(event, listener) {
        listeners.set(event, [...(listeners.get(event) ?? []), listener]);
      },
      whenReady: async () => undefined,
      quit: () => {
        fake.quitCalls++;
      },
      setLoginItemSettings: (s) => {
        fake.loginItem = { ...s };
      },
      getLoginItemSettings: () => ({ ...fake.loginItem }),
    },
    createTray(icon) {
      const clicks: Array<() => void> = [];
      const tray: FakeTray = {
        image: icon,
        tooltip: '',
        menu: [],
        destroyed: false,
        setImage: (i) => void (tray.image = i),
        setToolTip: (t) => void (tray.tooltip = t),
        setContextMenu: (m) => void (tray.menu = m),
        on: (_event, l) => void clicks.push(l),
        destroy: () => void (tray.destroyed = true),
        click: () => clicks.forEach((l) => l()),
      };
      fake.trays.push(tray);
      return tray;
    },
    createWindow(windowOptions) {
      let navigateListener: ((e: { preventDefault(): void }, url: string) => void) | undefined;
      let openHandler: ((d: { url: string }) => { action: 'deny' | 'allow' }) | undefined;
      const closed: Array<() => void> = [];
      const webContents: WebContentsLike = {
        on: (_event, l) => void (navigateListener = l),
        setWindowOpenHandler: (h) => void (openHandler = h),
      };
      const win: FakeWindow = {
        options: windowOptions,
        loaded: [],
        shown: 0,
        destroyed: false,
        webContents,
        loadURL: async (url) => void win.loaded.push(url),
        show: () => void win.shown++,
        focus: () => undefined,
        isDestroyed: () => win.destroyed,
        on: (_event, l) => void closed.push(l),
        close: () => {
          win.destroyed = true;
          closed.forEach((l) => l());
        },
        navigate(url) {
          let prevented = false;
          navigateListener?.({ preventDefault: () => void (prevented = true) }, url);
          return !prevented;
        },
        open: (url) => openHandler?.({ url }).action ?? 'allow',
      };
      fake.windows.push(win);
      return win;
    },
    notify: (title, body) => void fake.notifications.push({ title, body }),
    openExternal: async (url) => void fake.opened.push(url),
    safeStorage: {
      isEncryptionAvailable: () => options.encryption ?? true,
      encryptString: (text) => Buffer.from(`enc:${text}`, 'utf8'),
      decryptString: (data) => data.toString('utf8').replace(/^enc:/, ''),
    },
  };
  return fake;
}
