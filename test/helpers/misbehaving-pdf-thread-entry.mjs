// The entry of a PDF thread whose operations misbehave on marked PDFs (./misbehaving-pdf-thread.ts).
import { register } from 'tsx/esm/api';

register();
await import('./misbehaving-pdf-thread.ts');
