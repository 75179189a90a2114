import type { GridValue } from './grid.ts';
import { runSweepTaskInWorker, type SweepTask, type SweepTaskResult } from './task.ts';

/** A tinypool worker thread for `routerbench sweep`: one sweep task per call. */
export default function run({ task, point }: { task: SweepTask; point: Record<string, GridValue> }): SweepTaskResult {
  return runSweepTaskInWorker(task, point);
}
