/**
 * What the indexer reports to, as role interfaces it owns: origin/admin implements them (the
 * Prometheus metrics in admin/index-metrics.ts; /healthz in admin/server.ts merges the reports),
 * so the index imports nothing from the admin. The shapes are the parts of prom-client's
 * Gauge and Counter the indexer calls.
 */

/** A level the indexer sets (tip height, lag, rate). */
export interface Gauge {
  set(value: number): void;
}

/** A level set per label value (the alarm, by reason). */
export interface LabelledGauge {
  set(labels: Record<string, string>, value: number): void;
}

/** A count the indexer adds to (blocks, reorgs, bytes). */
export interface Counter {
  inc(by?: number): void;
}

/** A count per label value (node errors, by kind). */
export interface LabelledCounter {
  inc(labels: Record<string, string>): void;
}

/** The indexer's metrics: tip, sealed tip, lag, rate, reorgs, node errors, uploads, the alarm. */
export interface IndexMetrics {
  tipHeight: Gauge;
  sealedHeight: Gauge;
  nodeTipHeight: Gauge;
  lagBlocks: Gauge;
  blocksPerSecond: Gauge;
  blocksIndexed: Counter;
  reorgs: Counter;
  reorgDepth: Gauge;
  deepTailReorgs: Counter;
  nodeErrors: LabelledCounter;
  uploadedBytes: Counter;
  rangesSealed: Counter;
  /** 1 when following stopped: a reorg reached sealed ranges. */
  alarm: LabelledGauge;
}

/** What a part reports of its health: `ok: false` makes /healthz answer 503. */
export interface HealthReport {
  ok: boolean;
  status: string;
  [detail: string]: unknown;
}
