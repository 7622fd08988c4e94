import type { Logger } from "pino";
import { LightedgeError } from "../../proto/errors.ts";
import { type HeadObject, wireHashOf } from "../../proto/range/index.ts";
import type { IndexMetrics } from "../admin/index-metrics.ts";
import type { HealthReport } from "../admin/server.ts";
import type { ChainSource, NodeInfoSource } from "../node/ports.ts";
import type { BlobStore } from "../store/index.ts";
import { bootstrapFromStore } from "./bootstrap.ts";
import type { ChainView } from "./chain-view.ts";
import { type FollowState, followStep, type IndexHooks } from "./follow-step.ts";
import { createRateMeter } from "./rate-meter.ts";
import { backoffMs, retrying, sleep } from "./retry.ts";
import { createSealedReader } from "./sealed-reader.ts";
import { createSealer } from "./sealer.ts";
import { createTail, type IndexedBlock } from "./tail.ts";
import { createTailLog } from "./tail-log.ts";
import { restoreTail } from "./tail-restore.ts";
import { createChainView } from "./view.ts";

/** The head's node info (GetLightdInfo with the origin down) is refreshed this often while idle. */
const HEAD_REFRESH_MS = 60_000;

export interface IndexerOptions {
  chain: ChainSource;
  info: NodeInfoSource;
  store: BlobStore;
  network: string;
  dataDir: string;
  rangeSize: number;
  sealDepth: number;
  concurrency: number;
  fromHeight: number;
  pollMs: number;
  log: Logger;
  metrics?: IndexMetrics;
  hooks?: IndexHooks;
  /** Blocks per node batch during sync (default 50). */
  chunkSize?: number;
  /** Ranges uploading at once (default 4). */
  uploadsInFlight?: number;
}

export interface IndexerStatus {
  phase: "starting" | "syncing" | "following" | "alarm" | "stopped";
  tip: number;
  sealedTip: number;
  nodeTip: number;
  floor: number;
  blocksPerSecond: number;
  alarm?: string;
  /** Last node or store error, while it persists. */
  lastError?: string;
}

export interface Indexer {
  readonly view: ChainView;
  /** Bootstraps from the store and the data dir, then follows the node until `stop()`. */
  start(): Promise<void>;
  /** Resolves the first time everything final is sealed and the tip matches the node's. */
  synced(): Promise<void>;
  stop(): Promise<void>;
  status(): IndexerStatus;
  health(): HealthReport;
}

export function createIndexer(o: IndexerOptions): Indexer {
  const floor = Math.ceil(o.fromHeight / o.rangeSize) * o.rangeSize;
  const tail = createTail();
  const log = createTailLog(o.dataDir, o.network);
  const sealed = createSealedReader(o.store, o.network, o.rangeSize);
  const rate = createRateMeter();
  const controller = new AbortController();
  let head: HeadObject | null = null;
  let state: FollowState | undefined;
  let phase: IndexerStatus["phase"] = "starting";
  let nodeTip = -1;
  let lastError: string | undefined;
  let loop: Promise<void> | undefined;
  let resolveSynced: () => void = () => {};
  let rejectSynced: (err: unknown) => void = () => {};
  const syncedPromise = new Promise<void>((resolve, reject) => {
    resolveSynced = resolve;
    rejectSynced = reject;
  });
  syncedPromise.catch(() => {});

  const viewFloor = () => head?.firstHeight ?? floor;
  const view = createChainView({
    tail,
    sealed,
    rangeSize: o.rangeSize,
    head: () => state?.sealer.head() ?? head,
    floor: viewFloor,
    // Rare path (a hash below the tail): ask the node where it is; the view verifies the answer.
    resolveHeight: (displayHash) =>
      o.chain.block(displayHash).then(
        (b) => b.height,
        () => undefined,
      ),
  });

  const noteError = (where: string) => (err: unknown) => {
    lastError = `${where}: ${err instanceof Error ? err.message : String(err)}`;
    const kind = err instanceof LightedgeError ? err.kind : "network";
    if (where === "node") o.metrics?.nodeErrors.inc({ kind });
    o.log.warn({ err, where }, "transient failure; retrying");
  };

  const onSealed = (next: HeadObject) => {
    head = next;
    const tip = next.tip!.height;
    tail.dropThrough(tip);
    o.metrics?.sealedHeight.set(tip);
    o.metrics?.rangesSealed.inc();
    if (state && state.loggedFrom <= tip) {
      const first = tail.first();
      const last = tail.last();
      state.log.rewrite(first && last ? tail.slice(first.height, last.height) : []);
      state.loggedFrom = first ? first.height : Infinity;
    }
    o.log.debug({ sealedTip: tip, ranges: next.rangeCount }, "head advanced");
  };

  const onAppended = (blocks: readonly IndexedBlock[]) => {
    rate.add(blocks.length);
    o.metrics?.blocksIndexed.inc(blocks.length);
    const tip = blocks[blocks.length - 1]!.height;
    o.metrics?.tipHeight.set(tip);
    o.metrics?.lagBlocks.set(Math.max(0, nodeTip - tip));
    o.metrics?.blocksPerSecond.set(rate.rate());
    view.notifyTip();
  };

  const onReorg = ({ fork, depth, deep }: { fork: number; depth: number; deep: boolean }) => {
    o.metrics?.reorgs.inc();
    o.metrics?.reorgDepth.set(depth);
    if (deep) {
      o.metrics?.alarm.set({ reason: "deep-reorg" }, 1);
      o.log.error(
        { fork, depth, sealDepth: o.sealDepth },
        "reorg deeper than the seal depth: sealing stopped, serving the last consistent state",
      );
    } else {
      o.log.warn({ fork, depth }, "reorg: rolled back to the fork point");
    }
  };

  const bootstrap = async () => {
    const result = await retrying(
      () =>
        bootstrapFromStore({
          store: o.store,
          chain: o.chain,
          sealed,
          network: o.network,
          rangeSize: o.rangeSize,
          concurrency: o.concurrency,
          log: o.log,
        }),
      noteError("bootstrap"),
      controller.signal,
    );
    head = result.head;
    const sealedTip = head?.tip
      ? { height: head.tip.height, wireHash: wireHashOf(head.tip.displayHash) }
      : undefined;
    const loggedFrom = restoreTail({ log, tail, sealedTip, floor, logger: o.log });
    o.metrics?.sealedHeight.set(sealedTip?.height ?? -1);
    const sealer = createSealer({
      store: o.store,
      info: o.info,
      network: o.network,
      rangeSize: o.rangeSize,
      maxInFlight: o.uploadsInFlight ?? 4,
      head,
      firstHeight: floor,
      onUploaded: (bytes) => o.metrics?.uploadedBytes.inc(bytes),
      onSealed,
      onStoreError: noteError("store"),
      rangeObjects: o.hooks?.rangeObjects,
    });
    state = {
      chain: o.chain,
      tail,
      log,
      sealer,
      rangeSize: o.rangeSize,
      sealDepth: o.sealDepth,
      concurrency: o.concurrency,
      chunkSize: o.chunkSize ?? 50,
      floor: viewFloor(),
      finalized: -1,
      loggedFrom,
      alarm: undefined,
      hooks: o.hooks ?? {},
      signal: controller.signal,
      onAppended,
      onReorg,
    };
  };

  const run = async (s: FollowState) => {
    let failures = 0;
    while (!controller.signal.aborted) {
      try {
        const best = await o.chain.bestBlock();
        nodeTip = best.height;
        o.metrics?.nodeTipHeight.set(best.height);
        const outcome = await followStep(s, best);
        failures = 0;
        lastError = undefined;
        phase = outcome === "alarm" ? "alarm" : outcome === "idle" ? "following" : "syncing";
        o.metrics?.lagBlocks.set(Math.max(0, nodeTip - (view.tip()?.height ?? -1)));
        o.metrics?.blocksPerSecond.set(rate.rate());
        if (outcome === "alarm") rejectSynced(new LightedgeError("chain-break", "indexer", s.alarm!));
        if (outcome === "idle") {
          await s.sealer.flush();
          await s.sealer.refreshHead(HEAD_REFRESH_MS);
          if (nextRangeWaits(s)) resolveSynced();
        }
        if (outcome !== "progress") await sleep(o.pollMs, controller.signal);
      } catch (err) {
        if (
          err instanceof LightedgeError &&
          err.kind !== "unavailable" &&
          err.kind !== "above-tip" &&
          err.kind !== "not-found"
        )
          throw err;
        noteError("node")(err);
        await sleep(backoffMs(failures++), controller.signal);
      }
    }
  };

  /** True when the next range to seal is not final yet (nothing sealable is left behind). */
  const nextRangeWaits = (s: FollowState) => {
    const h = s.sealer.head();
    const next = h ? h.firstHeight + (h.rangeCount + 1) * h.rangeSize - 1 : floor + o.rangeSize - 1;
    return next > s.finalized || (view.tip()?.height ?? -1) < next;
  };

  return {
    view,
    async start() {
      await bootstrap();
      view.notifyTip();
      phase = "syncing";
      loop = run(state!).catch((err: unknown) => {
        phase = "stopped";
        lastError = err instanceof Error ? err.message : String(err);
        o.log.fatal({ err }, "indexer stopped");
        throw err;
      });
      loop.catch(() => {});
    },
    synced: () => Promise.race([syncedPromise, loop ?? new Promise<never>(() => {})]) as Promise<void>,
    async stop() {
      controller.abort();
      await loop?.catch(() => {});
      await state?.sealer.flush().catch(() => {});
      phase = "stopped";
    },
    status: () => ({
      phase,
      tip: view.tip()?.height ?? -1,
      sealedTip: view.sealedTip(),
      nodeTip,
      floor: viewFloor(),
      blocksPerSecond: rate.rate(),
      alarm: state?.alarm,
      lastError,
    }),
    health() {
      const status = this.status();
      const ok = status.phase !== "alarm" && status.phase !== "stopped" && status.lastError === undefined;
      return { ok, status: status.alarm ?? status.lastError ?? status.phase, ...status };
    },
  };
}
