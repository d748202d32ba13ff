/**
 * The slice of Electron that the tray app uses, as Sello owns it (STYLE "For Sello" 2).
 * `main/index.ts` adapts the real module to it; tests pass `test/fakes/electron.ts`.
 */
export interface TrayLike {
  setImage(iconPath: string): void;
  setToolTip(text: string): void;
  setContextMenu(items: MenuItem[]): void;
  on(event: 'click', listener: () => void): void;
  destroy(): void;
}

export interface MenuItem {
  label: string;
  click?: () => void;
  type?: 'separator' | 'checkbox' | 'normal';
  checked?: boolean;
  /** false: shown greyed out, for information only. */
  enabled?: boolean;
}

export interface WebContentsLike {
  on(event: 'will-navigate', listener: (event: { preventDefault(): void }, url: string) => void): void;
  setWindowOpenHandler(handler: (details: { url: string }) => { action: 'deny' | 'allow' }): void;
}

export interface WindowLike {
  loadURL(url: string): Promise<void>;
  show(): void;
  focus(): void;
  isDestroyed(): boolean;
  on(event: 'closed', listener: () => void): void;
  readonly webContents: WebContentsLike;
}

export interface ElectronApi {
  app: {
    requestSingleInstanceLock(): boolean;
    on(event: 'second-instance' | 'window-all-closed' | 'before-quit', listener: () => void): void;
    whenReady(): Promise<void>;
    quit(): void;
    setLoginItemSettings(settings: { openAtLogin: boolean }): void;
    getLoginItemSettings(): { openAtLogin: boolean };
  };
  createTray(iconPath: string): TrayLike;
  createWindow(options: WindowOptions): WindowLike;
  notify(title: string, body: string): void;
  openExternal(url: string): Promise<void>;
  safeStorage: {
    isEncryptionAvailable(): boolean;
    encryptString(text: string): Buffer;
    decryptString(data: Buffer): string;
  };
}

export interface WindowOptions {
  width: number;
  height: number;
  show: boolean;
  title: string;
  webPreferences: {
    contextIsolation: true;
    sandbox: true;
    nodeIntegration: false;
    webSecurity: true;
    allowRunningInsecureContent: false;
    spellcheck: false;
  };
}
