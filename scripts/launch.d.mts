// Types of ./launch.mjs, for the tests written in TypeScript.
import type { spawn } from 'node:child_process';
import type fs from 'node:fs';

export type HeadlessKind = 'no_display' | 'no_package' | 'network' | 'disk_full' | 'node_too_old' | 'timeout' | 'http' | 'checksum' | 'permission' | 'installer_failed';
export type Launch = { mode: 'electron'; binary: string } | { mode: 'headless'; kind: HeadlessKind; reason: string };

export interface InstallerOutcome {
  output: string;
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  spawnError?: string;
}

export declare const DEFAULT_DOWNLOAD_TIMEOUT_S: number;
export declare function hasDisplay(platform?: string, env?: NodeJS.ProcessEnv): boolean;
export declare function electronPackageDir(from?: string): string | undefined;
export declare function platformExecutable(platform: string): string;
export declare function installedElectron(
  electronDir: string,
  options?: { platform?: string; env?: NodeJS.ProcessEnv; fsApi?: typeof fs },
): { binary: string; version?: string; missing?: undefined } | { missing: string; version?: string; binary?: undefined };
export declare function downloadFailure(outcome: Partial<InstallerOutcome> & { timeoutS?: number }, nodeVersion?: string): { kind: HeadlessKind; reason: string };
export declare function folderBytes(dir: string, fsApi?: typeof fs): number;
export declare function runInstaller(options: {
  nodePath?: string;
  script: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs: number;
  onProgress?: (bytes: number) => void;
  echo?: (text: string) => void;
  spawnFn?: typeof spawn;
  progressEveryMs?: number;
}): Promise<InstallerOutcome>;
export declare function progressReporter(
  stream: { isTTY?: boolean; write(text: string): unknown },
  options?: { everyMs?: number; now?: () => number },
): { update(bytes: number): void; end(): void };
export declare function downloadTimeoutS(env?: NodeJS.ProcessEnv): number;
export declare function chooseLaunch(options: {
  platform?: string;
  env?: NodeJS.ProcessEnv;
  nodeVersion?: string;
  nodePath?: string;
  electronDir: string | undefined;
  timeoutS?: number;
  log?: (line: string) => void;
  echo?: (text: string) => void;
  onProgress?: (bytes: number) => void;
  spawnFn?: typeof spawn;
  fsApi?: typeof fs;
}): Promise<Launch>;
