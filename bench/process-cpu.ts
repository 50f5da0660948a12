/**
 * CPU time of the processes a steady run owns, from /proc (Linux; null elsewhere): the Debrief
 * server, and on PostgreSQL the cluster (its postmaster and every backend and helper it forked).
 * Beside the machine-wide figure, which on a shared machine also counts other people's work.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Clock ticks a second, as the /proc figures count them (USER_HZ: 100 on Linux). */
export const TICKS = 100;

export interface ProcessStat {
  ppid: number;
  /** utime + stime, in ticks. */
  own: number;
  /** cutime + cstime: the children it has waited for, in ticks. */
  children: number;
}

/** A process's parent and CPU ticks, from /proc/<pid>/stat; null when it is gone or no /proc. */
export function processStat(pid: number | string): ProcessStat | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may contain spaces) start at field 3 (state).
    const fields = text
      .slice(text.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return {
      ppid: fields[1] ?? 0,
      own: (fields[11] ?? 0) + (fields[12] ?? 0),
      children: (fields[13] ?? 0) + (fields[14] ?? 0),
    };
  } catch {
    return null;
  }
}

const pids = () => readdirSync('/proc').filter((name) => /^\d+$/.test(name));

/** The postmaster listening on `port` (its command line has `-p <port>`), or null. */
export function findPostmaster(port: number): number | null {
  try {
    for (const pid of pids()) {
      let argv: string[];
      try {
        argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      } catch {
        continue;
      }
      if (!argv[0]?.endsWith('postgres')) continue;
      const flag = argv.indexOf('-p');
      if (flag >= 0 && argv[flag + 1] === String(port)) return Number(pid);
    }
  } catch {
    // No /proc: no figure.
  }
  return null;
}

/**
 * A PostgreSQL cluster's CPU seconds so far: the postmaster's own and its reaped children's
 * (backends that have ended), plus every live child's. A backend that ends between two readings
 * moves from the second sum to the first, so the difference of two readings stays whole.
 */
export function clusterCpuSeconds(postmaster: number): number | null {
  const root = processStat(postmaster);
  if (!root) return null;
  let ticks = root.own + root.children;
  for (const pid of pids()) {
    const child = processStat(pid);
    if (child?.ppid === postmaster) ticks += child.own;
  }
  return ticks / TICKS;
}

/** The live processes whose parent is `pid`. */
export function childrenOf(pid: number): number[] {
  try {
    return pids()
      .map(Number)
      .filter((child) => processStat(child)?.ppid === pid);
  } catch {
    return [];
  }
}

/**
 * Runs `pids` at `nice`, and their autogroups too, and returns what restores both, or null where
 * that is not allowed (raising a priority takes root). A fixed rate is only kept if the server is
 * scheduled when its requests arrive. Linux shares the CPU fairly between sessions (autogroups)
 * before it looks at a process's niceness, and every other session on a busy machine weighs as
 * much as this one (each PostgreSQL backend is a session of its own): so the autogroup's weight is
 * raised, and the niceness for the threads inside it. Processes started later inherit both.
 */
export function raisePriority(pids: number[], nice: number): (() => void) | null {
  const niceness = new Map<number, number>();
  const groups = new Map<number, number>();
  try {
    for (const pid of pids) {
      niceness.set(pid, getPriority(pid));
      setPriority(pid, nice);
      const group = autogroupNice(pid);
      if (group !== null) {
        groups.set(pid, group);
        writeFileSync(`/proc/${pid}/autogroup`, String(nice));
      }
    }
  } catch {
    restore(niceness, groups);
    return null;
  }
  return () => restore(niceness, groups);
}

/** The nice value of a process's autogroup ("/autogroup-7 nice 0"), or null without autogroups. */
function autogroupNice(pid: number): number | null {
  try {
    const match = /nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

function restore(niceness: Map<number, number>, groups: Map<number, number>): void {
  for (const [pid, nice] of groups) {
    try {
      writeFileSync(`/proc/${pid}/autogroup`, String(nice));
    } catch {
      // Gone already: nothing to restore.
    }
  }
  for (const [pid, nice] of niceness) {
    try {
      setPriority(pid, nice);
    } catch {
      // Gone already.
    }
  }
}

/**
 * Raises every child `parent` has, now and each `everyMs` after, until `stop()` restores them:
 * a PostgreSQL backend is a session of its own, opened whenever the server's pool grows, and one
 * left at the ordinary weight stalls the requests that wait on it.
 */
export function keepChildrenRaised(parent: number, nice: number, everyMs = 250) {
  const raised = new Map<number, (() => void) | null>();
  const raiseNew = () => {
    for (const child of childrenOf(parent))
      if (!raised.has(child)) raised.set(child, raisePriority([child], nice));
  };
  raiseNew();
  const timer = setInterval(raiseNew, everyMs);
  return {
    stop(): void {
      clearInterval(timer);
      for (const restore of raised.values()) restore?.();
    },
  };
}
