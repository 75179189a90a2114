// A worker thread of the run pool. Workers start without tsx's loader, so register it before importing TS.
import { register } from 'tsx/esm/api';

register();
const { runTask } = await import('./run-task.ts');
const { withStderrProgress } = await import('../cli/run-progress.ts');

/** A run alone on its thread shows its own progress line (the main thread only waits for it). */
export default (task) => (task.progress === undefined ? runTask(task) : withStderrProgress(task.progress.label, true, (observers) => runTask(task, observers), task.progress.tty));
