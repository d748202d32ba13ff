import type { WebContentsLike, WindowOptions } from './electron-api.js';

/** The Electron security checklist, as options: isolated, sandboxed, no Node in the page. */
export function mainWindowOptions(): WindowOptions {
  return {
    width: 1100,
    height: 760,
    show: false,
    title: 'Sello',
    webPreferences: {
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      spellcheck: false,
    },
  };
}

/**
 * The window shows Sello's own UI and nothing else: navigation away from `origin` is
 * stopped, and new windows are denied (http(s) links open in the browser instead).
 */
export function lockDownNavigation(webContents: WebContentsLike, origin: string, openExternal: (url: string) => void): void {
  webContents.on('will-navigate', (event, url) => {
    if (originOf(url) !== origin) event.preventDefault();
  });
  webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//i.test(url) && originOf(url) !== origin) openExternal(url);
    return { action: 'deny' };
  });
}

function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}
