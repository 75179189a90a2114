import { describe, expect, it } from 'vitest';
import { isDottedQuad } from '../../core/dotted-quad.ts';
import { usageReply } from './cli-help.ts';
import { completeRequestLength, parseCliRequest } from './cli-line.ts';
import { canonicalIp } from './ip-address.ts';

describe('parseCliRequest', () => {
  it('splits commands at unescaped ; and words at blanks', () => {
    expect(parseCliRequest('show backend;  get weight a/b ;x')).toEqual([{ words: ['show', 'backend'] }, { words: ['get', 'weight', 'a/b'] }, { words: ['x'] }]);
    expect(parseCliRequest('a\tb   c')).toEqual([{ words: ['a', 'b', 'c'] }]);
  });

  it('keeps empty commands (HAProxy answers them with its help)', () => {
    expect(parseCliRequest('a;')).toEqual([{ words: ['a'] }, { words: [] }]);
    expect(parseCliRequest('')).toEqual([{ words: [] }]);
  });

  it('removes one level of backslashes: an escaped ; or blank stays in the word', () => {
    expect(parseCliRequest('add map m a\\;b c\\ d e\\\\f')).toEqual([{ words: ['add', 'map', 'm', 'a;b', 'c d', 'e\\f'] }]);
    expect(parseCliRequest('k ^a\\\\.b$')[0]!.words).toEqual(['k', '^a\\.b$']);
  });

  it('ends a command at the line end even after a last, lone backslash, which is dropped', () => {
    // HAProxy 2.6.12 answers `show map \;\` as `show map ;`: "Unknown map identifier. Please use #<id> or <file>."
    expect(parseCliRequest('show map \\;\\').map((c) => c.words)).toEqual([['show', 'map', ';']]);
    expect(parseCliRequest('a;b\\').map((c) => c.words)).toEqual([['a'], ['b']]);
  });

  it('treats quotes as ordinary characters', () => {
    expect(parseCliRequest("add map m 'a b' v")[0]!.words).toEqual(['add', 'map', 'm', "'a", "b'", 'v']);
  });

  it('gives the payload after << to the last command, up to the first empty line', () => {
    expect(parseCliRequest('add map m <<\nk v\nk2 v2\n\nignored\n')).toEqual([{ words: ['add', 'map', 'm'], payload: ['k v', 'k2 v2'] }]);
    expect(parseCliRequest('show backend;add map m <<\nk v')).toEqual([{ words: ['show', 'backend'] }, { words: ['add', 'map', 'm'], payload: ['k v'] }]);
  });

  it('drops the CR of payload lines and ends a payload at a line holding only a CR', () => {
    expect(parseCliRequest('add map m <<\r\nk v\r\n\r\nignored\n')).toEqual([{ words: ['add', 'map', 'm'], payload: ['k v'] }]);
    const request = 'add map m <<\nk v\r\n\r\nnext\n';
    expect(completeRequestLength(request)).toBe(request.indexOf('next'));
    expect(completeRequestLength('add map m <<\nk v\r\n')).toBe(-1);
  });

  it('keeps a << glued to a word, and reads the payload lines as more words (HAProxy 2.6.12 stored key `a<<`, value k1)', () => {
    expect(parseCliRequest('add map m a<<\nk1 v1\n\n')).toEqual([{ words: ['add', 'map', 'm', 'a<<', 'k1', 'v1'] }]);
  });
});

describe('usageReply', () => {
  it('lists everything for an empty command and suggests close matches for a typo', () => {
    const all = usageReply(['']);
    expect(all.startsWith('Unknown command. Please enter one of the following commands only:\n  abort ssl ca-file')).toBe(true);
    // 100 usage lines, plus the title, help/prompt/quit, and the closing empty line.
    expect(all.split('\n')).toHaveLength(1 + 100 + 3 + 2);
    expect(usageReply(['shw', 'backend'])).toBe(
      'Unknown command, but maybe one of the following ones is a better match:\n' +
        '  show backend                            : list backends in the current running config\n' +
        '  help [<command>]                        : list matching or all commands\n' +
        '  prompt                                  : toggle interactive mode with prompt\n' +
        '  quit                                    : disconnect\n\n',
    );
  });
});

describe('IP literals', () => {
  it('reads IPv4 as inet_pton does', () => {
    expect(['10.0.0.1', '255.255.255.255', '0.0.0.0'].every(isDottedQuad)).toBe(true);
    expect(['010.0.0.1', '10.0.0', '10.0.0.256', '10.0.0.1.', 'a.b.c.d', ''].some(isDottedQuad)).toBe(false);
  });

  it('prints IPv6 as inet_ntop does', () => {
    expect(canonicalIp('2001:DB8:0:0::1')).toBe('2001:db8::1');
    expect(canonicalIp('1:0:0:1:0:0:0:1')).toBe('1:0:0:1::1');
    expect(canonicalIp('1:0:1:0:1:0:1:0')).toBe('1:0:1:0:1:0:1:0');
    expect(canonicalIp('::')).toBe('::');
    expect(canonicalIp('::FFFF:10.1.2.3')).toBe('::ffff:10.1.2.3');
    // IPv4-compatible: dotted when the zero run is exactly the first six groups (HAProxy 2.6.12, measured:
    // `set server be/s1 addr <a>` then `show servers state`).
    expect(canonicalIp('::1.2.3.4')).toBe('::1.2.3.4');
    expect(canonicalIp('::102:0')).toBe('::1.2.0.0');
    expect(canonicalIp('::0.0.0.5')).toBe('::5');
    expect(canonicalIp('1::1.2.3.4')).toBe('1::102:304');
    expect(canonicalIp('::1:1.2.3.4')).toBe('::1:102:304');
    expect(canonicalIp('bogus')).toBeUndefined();
    expect(canonicalIp('1::2::3')).toBeUndefined();
  });
});
