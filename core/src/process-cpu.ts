import { readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) a process of this machine has used so far, from Linux's
 * `/proc/<pid>/stat`: how the benchmarks read the cost of a process they started, or of a
 * PostgreSQL backend, on a machine shared with other work. Undefined when /proc cannot be read for
 * `pid` (no such process, another user's, not Linux).
 */
export function processCpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its end.
  // utime and stime are fields 14 and 15 of proc(5), the 12th and 13th from field 3 (the state).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return (utime + stime) / TICKS_PER_SECOND;
}

/** Linux reports utime and stime in USER_HZ ticks, 100 a second on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** `processCpuSeconds` of a process the caller started and must be able to read: throws when it cannot. */
export function requireProcessCpuSeconds(pid: number): number {
  const seconds = processCpuSeconds(pid);
  if (seconds === undefined) throw new Error(`no CPU time for process ${pid}: /proc/${pid}/stat unreadable`);
  return seconds;
}
