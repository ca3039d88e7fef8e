/**
 * A PostgreSQL backend's own CPU time, from `/proc/<pid>/stat` (utime + stime): the database runs
 * on this machine in the benches, so the pid `pg_backend_pid()` answers is a process we can read.
 * That is the database's cost of a statement without the client's or the network's, and without
 * what auto_explain's timing would add.
 */
import { readFile } from 'node:fs/promises';

/** Linux reports utime and stime in USER_HZ ticks, 100 a second on every architecture Node runs on. */
const TICKS_PER_SECOND = 100;

/** CPU seconds used so far by process `pid`; undefined when /proc cannot be read for it. */
export async function processCpuSeconds(pid: number): Promise<number | undefined> {
  let stat: string;
  try {
    stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its end.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Fields 14 and 15 of proc(5), counted from field 3 (the state) here.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return (utime + stime) / TICKS_PER_SECOND;
}
