import type { ImportStats } from './import-watch.ts';

/**
 * The line `routerbench import` ends with. Times moved because the stream went back and times moved because
 * they came before `--start` are told apart: the first says something about the recording, the second
 * about the start the user chose.
 */
export function importSummary(stats: ImportStats): string {
  let line = `imported ${stats.events} events from ${stats.objects} objects; ${stats.skipped} skipped`;
  const beforeStart = stats.beforeStart ?? 0;
  if (beforeStart > 0) line += `; ${beforeStart} ${timestamps(beforeStart)} earlier than --start ${were(beforeStart)} raised to time 0 (or to the previous event's time, if later)`;
  if (stats.raisedTimes > 0) line += `; ${stats.raisedTimes} ${timestamps(stats.raisedTimes)} earlier than the previous event's ${were(stats.raisedTimes)} raised to it`;
  return line;
}

function timestamps(n: number): string {
  return n === 1 ? 'timestamp' : 'timestamps';
}

function were(n: number): string {
  return n === 1 ? 'was' : 'were';
}
