import type { Socket } from 'node:net';
import { completeRequestLength, type CliSession } from './cli-line.ts';

/**
 * The stats socket's conversation, minus the socket (measured on 2.6.12): HAProxy answers every complete
 * request it has received (a line, or a `<<` line and its payload up to an empty line), in order, and closes
 * the connection once nothing is left; a request cut short by the client's end of stream gets no answer;
 * a line longer than its buffer drops the connection. After `prompt` (interactive mode) the connection
 * stays open with everything answered, until `quit`, another `prompt`, or the client's end. The caller owns the listening socket (see
 * sim/cli/mock-haproxy-command.ts); this file only frames bytes.
 */
export interface RuntimeApi {
  execute(request: string, session: CliSession): string;
}



/** HAProxy's default `tune.bufsize`: a request that does not fit is refused with a reset. */
export const REQUEST_BYTES_MAX = 16384;

/** Length of the longest prefix of `buffered` made of complete requests (0 if none is complete). */
export function completeRequestsLength(buffered: string): number {
  let end = 0;
  for (;;) {
    const n = completeRequestLength(end === 0 ? buffered : buffered.slice(end));
    if (n < 0) return end;
    end += n;
  }
}

export function serveConnection(socket: Socket, api: RuntimeApi): void {
  let buffered = '';
  let done = false;
  const session: CliSession = { interactive: false };
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    if (done) return;
    buffered += chunk;
    const end = completeRequestsLength(buffered);
    if (buffered.length - end > REQUEST_BYTES_MAX) {
      done = true;
      // HAProxy's peer sees a reset; a unix socket cannot send one from here, so the client sees an end.
      socket.destroy();
      return;
    }
    if (end === 0) return;
    const reply = api.execute(buffered.slice(0, end), session);
    buffered = buffered.slice(end);
    if (session.closed === true || (buffered.length === 0 && !session.interactive)) {
      done = true;
      socket.end(reply);
    } else {
      socket.write(reply);
    }
  });
  socket.on('end', () => {
    if (done) return;
    done = true;
    socket.end();
  });
  socket.on('error', () => socket.destroy());
}

