import type { Socket } from 'node:net';

/**
 * The stats socket's conversation, minus the socket: HAProxy's non-interactive mode reads one request (a
 * line, or a `<<` line and its payload up to an empty line), writes the reply and closes. The caller owns
 * the listening socket (see sim/cli/mock-haproxy-command.ts); this file only frames bytes.
 */
export interface RuntimeApi {
  execute(request: string): string;
}

/** The request's length in `buffered` once complete, or -1 while more bytes are needed. */
export function completeRequestLength(buffered: string): number {
  const nl = buffered.indexOf('\n');
  if (nl < 0) return -1;
  const firstLine = buffered.endsWith('\r', nl) ? buffered.slice(0, nl - 1) : buffered.slice(0, nl);
  if (!firstLine.endsWith('<<')) return nl + 1;
  // A payload ends at the first empty line.
  const end = buffered.indexOf('\n\n', nl);
  if (end >= 0) return end + 2;
  // `<<` followed directly by an empty line: no payload lines at all.
  if (buffered.startsWith('\n', nl + 1)) return nl + 2;
  return -1;
}

/** Serves one connection: one request, its reply, then the connection is closed. */
export function serveConnection(socket: Socket, api: RuntimeApi): void {
  let buffered = '';
  let answered = false;
  const answer = (request: string): void => {
    if (answered) return;
    answered = true;
    socket.end(api.execute(request));
  };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    buffered += chunk;
    const n = completeRequestLength(buffered);
    if (n >= 0) answer(buffered.slice(0, n));
  });
  // A client that half-closes without a newline still gets its answer, as with HAProxy.
  socket.on('end', () => {
    if (buffered.length > 0) answer(buffered);
    else if (!answered) socket.end();
  });
  socket.on('error', () => socket.destroy());
}
