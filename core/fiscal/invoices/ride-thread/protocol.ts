/** Messages between the process and the RIDE thread. */
import type { RideData } from '../../sri/index.js';

export interface RideJob {
  id: number;
  data: RideData;
}

export type RideAnswer = { id: number; pdf: Uint8Array } | { id: number; error: string };
