// Types of ./dist.mjs, for the tests written in TypeScript.
export declare const NATIVE_MODULES: string[];
export declare function distPlan(options?: {
  argv?: string[];
  env?: NodeJS.ProcessEnv;
  platform?: string;
  nodeVersion?: string;
}): { args: string[]; notes: string[]; error?: undefined } | { error: string; args?: undefined; notes?: undefined };
