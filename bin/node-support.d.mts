// Types of ./node-support.mjs, for the tests written in TypeScript.
export declare const RECOMMENDED_NODE: string;
export declare const MINIMUM_NODE: string;
export declare function versionBelow(a: string, b: string): boolean;
export declare function nodeSupport(version?: string): { fatal?: string; warning?: string };
