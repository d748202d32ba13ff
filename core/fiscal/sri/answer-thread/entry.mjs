// The SRI answer thread's entry (./index.ts). Sources are TypeScript and a worker thread does not
// inherit the loader of the thread that starts it: tsx is registered here, as in bin/sello.mjs
// and the other threads' entries, before the thread's code is loaded.
import { register } from 'tsx/esm/api';

register();
await import('./thread-main.ts');
