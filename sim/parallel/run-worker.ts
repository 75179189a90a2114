import { withStderrProgress } from '../cli/run-progress.ts';
import { runTask, type RunTask, type RunTaskResult } from './run-task.ts';

/**
 * A worker thread of the run pool (tinypool calls the default export once per task). A run alone on its
 * thread shows its own progress line (the main thread only waits for it).
 */
export default function runWorker(task: RunTask): RunTaskResult {
  return task.progress === undefined ? runTask(task) : withStderrProgress(task.progress.label, true, (observers) => runTask(task, observers), task.progress.tty);
}
