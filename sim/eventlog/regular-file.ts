import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';
import { formatBytes, limit } from '../limits.ts';
import { InputError } from './input-error.ts';

/**
 * Opens an input file for reading, refusing anything that is not a regular file. A named pipe can be read
 * only once, yet an event log is opened twice (its header, then its events), and `/dev/zero` or `/dev/urandom`
 * never ends: both are refused up front with a clear message rather than hanging or filling memory.
 * O_NONBLOCK keeps the open itself from waiting for a pipe's writer; it changes nothing for a regular file.
 */
export function openRegularFile(path: string, what: string): number {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  let st: Stats;
  try {
    st = fstatSync(fd);
  } catch (err) {
    closeSync(fd);
    throw err;
  }
  if (!st.isFile()) {
    closeSync(fd);
    if (st.isDirectory()) throw Object.assign(new Error(`EISDIR: illegal operation on a directory, read`), { code: 'EISDIR', path, syscall: 'read' });
    throw new InputError(path, `${what} must be a regular file, not ${kindOf(st)} (it is read more than once, or would never end): save it to a file first`);
  }
  return fd;
}

function kindOf(st: Stats): string {
  if (st.isFIFO()) return 'a named pipe';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  return 'a special file';
}

/**
 * A whole input file (scenario, haproxy.cfg, map, manifest, baseline), at most `maxBytes` of it: a larger
 * one is bad input rather than gigabytes in memory. The limit is checked against what is read, not only the
 * size stat reports, so a file that grows while read is still bounded.
 */
export function readInputFile(path: string, what: string, maxBytes = limit('fileBytes')): Buffer {
  const fd = openRegularFile(path, what);
  try {
    const size = fstatSync(fd).size;
    if (size > maxBytes) throw tooBig(path, what, maxBytes);
    // One byte more than expected, to see the end; the buffer grows (up to the limit and one) if the file did.
    let buf = Buffer.allocUnsafe(size + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (n > maxBytes) throw tooBig(path, what, maxBytes);
        const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, maxBytes + 1));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    if (n > maxBytes) throw tooBig(path, what, maxBytes);
    return buf.subarray(0, n);
  } finally {
    closeSync(fd);
  }
}

function tooBig(path: string, what: string, maxBytes: number): InputError {
  return new InputError(path, `${what} is larger than ${formatBytes(maxBytes)}, the limit for a file read whole (docs/limits.md; ROUTERBENCH_MAX_FILE_BYTES raises it)`);
}
