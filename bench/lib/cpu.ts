// CPU time from /proc (Linux), for figures that hold when the machine is shared: a round's CPU per request by thread
// (this process's main thread, its database thread, ...) and the PostgreSQL server's, beside its wall-clock rate.
import { readdirSync, readFileSync } from 'node:fs';

/** user + system CPU of a process or thread from its stat file, in µs (0 when it is gone). */
function statCpuUs(file: string): number {
  try {
    const f = readFileSync(file, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1e6) / 100;
  } catch {
    return 0;
  }
}

/** This process's threads' CPU in µs, by thread: "MainThread", "WorkerThread" (the database thread), "V8Worker"... with their id. */
export function threadCpuUs(): Map<string, number> {
  const out = new Map<string, number>();
  for (const t of readdirSync('/proc/self/task')) {
    try {
      const comm = readFileSync(`/proc/self/task/${t}/comm`, 'utf8').trim();
      out.set(`${comm} ${t}`, statCpuUs(`/proc/self/task/${t}/stat`));
    } catch {
      /* the thread ended */
    }
  }
  return out;
}

/** The parent of process `pid` (the postmaster of a PostgreSQL backend). */
export function parentOf(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]);
}

/** A PostgreSQL server's CPU in µs: its postmaster and every process it started (backends, writers, the WAL writer). */
export function serverCpuUs(postmaster: number): number {
  let us = statCpuUs(`/proc/${postmaster}/stat`);
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (parentOf(Number(d)) === postmaster) us += statCpuUs(`/proc/${d}/stat`);
    } catch {
      /* gone */
    }
  }
  return us;
}

/**
 * CPU spent between two calls, per unit of work: by thread kind (threads of one kind added up: the V8 helpers), and the
 * server's when a postmaster is given. `start()` then `per(n)`.
 */
export function cpuMeter(postmaster?: number) {
  const t0 = threadCpuUs();
  const s0 = postmaster ? serverCpuUs(postmaster) : 0;
  return (n: number): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const [k, v] of threadCpuUs()) {
      const kind = k.split(' ')[0]!;
      out[kind] = (out[kind] ?? 0) + (v - (t0.get(k) ?? 0)) / n;
    }
    if (postmaster) out.PostgreSQL = (serverCpuUs(postmaster) - s0) / n;
    for (const k of Object.keys(out)) out[k] = Math.round(out[k]!);
    return out;
  };
}
