// A tinypool worker thread for `routerbench sweep`: registers tsx so the TypeScript sources load here too
// (tinypool's threads do not inherit the main thread's loader hooks), then runs one sweep task per call.
import { register } from 'tsx/esm/api';

register();
const { runSweepTaskInWorker } = await import('./task.ts');

export default function run({ task, point }) {
  return runSweepTaskInWorker(task, point);
}
