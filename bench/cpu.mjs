// CPU time per answered request, the figure that depends least on what else the machine runs (bench/README.md).
import { readFileSync } from 'node:fs';
import { autocannon, median } from './lib.mjs';

/** The machine's load averages (1, 5, 15 minutes), as /proc/loadavg gives them. */
export const loadavg = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** CPU time (user + system, all threads, in microseconds) a process has used so far, from /proc/<pid>/stat. */
export function cpuUs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of proc_pid_stat(5), counted here from the state (field 3); 100 ticks/s.
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
}

/**
 * Loads each target (`{ name, url, headers?, pid }`: `pid` is the process that answers) in turn, `rounds` times
 * (drift of the machine hits all alike), and records besides req/s and p99 the CPU time that process spent per
 * answered request; medians over the rounds. `rounds[i]` of two targets are measured back to back (a pair).
 */
export async function measure(targets, { rounds, connections, duration, alternateOrder = false }) {
  const runs = new Map(targets.map((t) => [t.name, []]));
  for (let i = 0; i < rounds; i++) {
    // alternateOrder: every other round runs the targets in reverse (A B, B A, A B, ...), so neither is always the
    // one measured first or second in a round.
    const order = alternateOrder && i % 2 === 1 ? [...targets].reverse() : targets;
    for (const t of order) {
      const before = cpuUs(t.pid);
      const r = await autocannon(t.url, { connections, duration, headers: t.headers });
      const used = cpuUs(t.pid) - before;
      runs.get(t.name).push({ ...r, cpuUsPerRequest: used / Math.max(1, r.rps * duration) });
    }
  }
  return targets.map((t) => {
    const rs = runs.get(t.name);
    return {
      name: t.name,
      rps: Math.round(median(rs.map((r) => r.rps))),
      p99: median(rs.map((r) => r.p99)),
      errors: rs.reduce((a, r) => a + r.errors, 0),
      rounds: rs.map((r) => Math.round(r.rps)),
      cpuRounds: rs.map((r) => Number(r.cpuUsPerRequest.toFixed(1))),
      cpuUsPerRequest: median(rs.map((r) => r.cpuUsPerRequest)),
    };
  });
}
