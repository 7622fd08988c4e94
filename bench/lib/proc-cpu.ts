import { readdirSync, readFileSync } from "node:fs";

// CPU time of server-side processes, read from /proc so load generators (separate processes)
// are never counted. utime+stime are in clock ticks; Linux uses 100 ticks per second.
const TICKS_PER_SECOND = 100;

/** CPU seconds (user + system) used so far by one process, or 0 if it is gone. */
export function processCpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may contain spaces) start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** pid and every descendant (workerd under wrangler, workers under node). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = children.get(ppid) ?? [];
      list.push(pid);
      children.set(ppid, list);
    } catch {
      // raced with exit
    }
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** Peak resident set (VmHWM) of a process in MiB, or 0 if it is gone. */
export function peakRssMiB(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Current resident set (VmRSS) of a process in MiB, or 0 if it is gone. */
export function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/**
 * Measures server CPU over an interval: call `start()` before the load and `stop()` after.
 * Descendants are re-discovered at stop so late-spawned children count too; processes that
 * exit during the interval are lost (documented limitation).
 */
export function createCpuMeter(rootPids: number[]): { start(): void; stop(): number } {
  let before = new Map<number, number>();
  const sample = () => {
    const m = new Map<number, number>();
    for (const root of rootPids) for (const pid of processTree(root)) m.set(pid, processCpuSeconds(pid));
    return m;
  };
  return {
    start() {
      before = sample();
    },
    stop() {
      let total = 0;
      for (const [pid, cpu] of sample()) total += cpu - (before.get(pid) ?? 0);
      return total;
    },
  };
}
