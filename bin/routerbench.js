#!/usr/bin/env node
// The CLI is TypeScript run through tsx, so `npx routerbench` works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';

register();
await import('../sim/cli/main.ts');
