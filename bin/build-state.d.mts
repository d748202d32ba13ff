// Types of ./build-state.mjs, for the tests written in TypeScript.
export declare const root: string;
export declare const defaultOutDir: string;
export declare const STAMP: string;
export interface BuildStamp {
  newestSource: number;
  builtAt: string;
  entries: string[];
  files: string[];
}
export declare function newestSourceMtime(dir?: string): number;
export declare function readStamp(outDir?: string): BuildStamp | undefined;
export declare function builtEntry(name: string, options?: { outDir?: string; checkSources?: boolean; sourceRoot?: string }): string | undefined;
