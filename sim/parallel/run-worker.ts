import { stderrStream, withStderrProgress } from '../cli/run-progress.ts';
import { runTask, type RunTask, type RunTaskResult } from './run-task.ts';

/**
 * A worker thread of the run pool (tinypool calls the default export once per task). A run alone on its
 * thread shows its own progress line (the main thread only waits for it).
 */
export default function runWorker(task: RunTask): RunTaskResult {
  const p = task.progress;
  return p === undefined ? runTask(task) : withStderrProgress(p.label, true, (observers) => runTask(task, observers), stderrStream(p.tty, p.columns));
}
