import { type LoadResult, type LoadSpec, runLoad } from "./load.ts";
import { createCpuMeter } from "./proc-cpu.ts";
import { round } from "./stats.ts";

export interface Measured extends LoadResult {
  /** CPU seconds of every server-side process tree during the load. */
  serverCpuSec: number;
  blocksPerSec: number;
  MBps: number;
  blocksPerServerCpuSec: number;
  bytesPerBlock: number;
  /** Server CPU seconds per GB served. */
  cpuSecPerGB: number;
}

/**
 * Runs a load against a server while metering the CPU of the server-side process trees (from
 * before the load processes spawn to after they exit: idle server time is counted, not hidden).
 */
export async function measure(spec: LoadSpec, serverPids: number[]): Promise<Measured> {
  // Warm-up runs apart, before the meter starts: its CPU must not count against measured blocks.
  if (spec.warmup)
    await runLoad({ ...spec, warmup: 0, durationMs: undefined, requestsPerClient: spec.warmup });
  const cpu = createCpuMeter(serverPids);
  cpu.start();
  const r = await runLoad({ ...spec, warmup: 0 });
  const serverCpuSec = Math.max(cpu.stop(), 0.01);
  return {
    ...r,
    serverCpuSec: round(serverCpuSec),
    blocks: Math.round(r.blocks),
    blocksPerSec: round(r.blocks / r.elapsedSec, 1),
    bytesPerBlock: round(r.bytes / Math.max(r.blocks, 1), 1),
    MBps: round(r.bytes / r.elapsedSec / 1e6, 1),
    blocksPerServerCpuSec: round(r.blocks / serverCpuSec, 0),
    cpuSecPerGB: round(serverCpuSec / Math.max(r.bytes / 1e9, 1e-9)),
  };
}

/** A note when a target and its baseline did not send the same bytes per block (a bad baseline). */
export function sameBytesNote(label: string, target: Measured, baseline: Measured): string | undefined {
  const ratio = target.bytesPerBlock / Math.max(baseline.bytesPerBlock, 1e-9);
  return Math.abs(ratio - 1) > 0.02
    ? `${label}: ${target.bytesPerBlock} bytes/block vs static ${baseline.bytesPerBlock} (not the same bytes)`
    : undefined;
}

/** The figures every throughput row reports, plus ratios to the same-run static baseline. */
export function compareFigures(prefix: string, target: Measured, baseline: Measured): Record<string, number> {
  return {
    [`${prefix}.blocksPerSec`]: target.blocksPerSec,
    [`${prefix}.MBps`]: target.MBps,
    [`${prefix}.p50Ms`]: target.p50Ms,
    [`${prefix}.p99Ms`]: target.p99Ms,
    [`${prefix}.errors`]: target.errors,
    [`${prefix}.blocksPerServerCpuSec`]: target.blocksPerServerCpuSec,
    [`${prefix}.vsStatic`]: round(target.blocksPerSec / Math.max(baseline.blocksPerSec, 1e-9)),
    // CPU per byte, not per block: the two serve the same bytes, so this is the format's overhead.
    [`${prefix}.cpuPerByteVsStatic`]: round(target.cpuSecPerGB / Math.max(baseline.cpuSecPerGB, 1e-9)),
  };
}
