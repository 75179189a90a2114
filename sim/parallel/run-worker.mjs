// A worker thread of the run pool. Workers start without tsx's loader, so register it before importing TS.
import { register } from 'tsx/esm/api';

register();
const { runTask } = await import('./run-task.ts');

export default runTask;
