// Types of ./build.mjs, for the tests written in TypeScript.
export declare const APP_ENTRIES: Record<string, string>;
export declare const THREAD_ENTRIES: Record<string, string>;
export declare const ENTRIES: Record<string, string>;
export declare const EXTERNAL: string[];
export declare function usedMediaTypes(db: Record<string, { source?: string; charset?: string; extensions?: string[] }>): Record<string, { source?: string; charset?: string; extensions?: string[] }>;
export declare function build(options?: { outDir?: string; quiet?: boolean; metafile?: boolean }): Promise<{ newestSource: number; builtAt: string; entries: string[]; files: string[] }>;
