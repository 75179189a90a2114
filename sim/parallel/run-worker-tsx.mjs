// The run pool's worker from the TypeScript sources: register tsx before importing TS (compiled, the pool
// starts run-worker.js directly).
import { register } from 'tsx/esm/api';

register();
const { default: runWorker } = await import('./run-worker.ts');

export default runWorker;
