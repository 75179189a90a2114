// The sweep's worker from the TypeScript sources: register tsx so the sources load here too (tinypool's
// threads do not inherit the main thread's loader hooks); compiled, the pool starts sweep-worker.js directly.
import { register } from 'tsx/esm/api';

register();
const { default: run } = await import('./sweep-worker.ts');

export default run;
