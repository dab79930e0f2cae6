// CPU time of processes, from /proc: robust to the machine's sharing, where wall time is not.
import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** CPU time of a process so far, in µs (utime + stime, clock ticks of 10 ms); 0 once it ended. */
export function cpuOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10_000;
  } catch {
    return 0; // a process that ended meanwhile
  }
}

/** CPU time so far, in µs, of every PostgreSQL process (the postmaster, its backends and workers). */
export const postgresCpu = (): number =>
  execSync('pgrep -u postgres || true')
    .toString()
    .split('\n')
    .filter(Boolean)
    .reduce((sum, pid) => sum + cpuOf(Number(pid)), 0);
