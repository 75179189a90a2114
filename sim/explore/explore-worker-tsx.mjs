// explore's worker from the TypeScript sources: register tsx before importing TS (compiled, the pool starts
// explore-worker.js directly).
import { register } from 'tsx/esm/api';

register();
const { default: exploreWorker } = await import('./explore-worker.ts');

export default exploreWorker;
