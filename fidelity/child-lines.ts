import type { ChildProcess } from 'node:child_process';

/** Calls `onLine` with every complete line the child prints on stdout. */
export function onChildLines(p: ChildProcess, onLine: (line: string) => void): void {
  let rest = '';
  p.stdout!.setEncoding('utf8');
  p.stdout!.on('data', (chunk: string) => {
    rest += chunk;
    const lines = rest.split('\n');
    rest = lines.pop()!;
    for (const line of lines) onLine(line);
  });
}
