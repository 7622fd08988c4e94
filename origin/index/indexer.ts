import type { Logger } from "pino";
import { displayHex, wireHashOf } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import type { HeadObject } from "../../proto/range/index.ts";
import { genesisMatches } from "../node/network.ts";
import type { ChainSource, NodeInfoSource } from "../node/ports.ts";
import type { BlobStore } from "../store/index.ts";
import { bootstrapFromStore } from "./bootstrap.ts";
import type { ChainView, TipInfo } from "./chain-view.ts";
import { IndexerConfigError, isConfigurationError } from "./config-error.ts";
import { type FollowState, followStep, type IndexHooks } from "./follow-step.ts";
import { createRateMeter } from "./rate-meter.ts";
import type { HealthReport, IndexMetrics } from "./reporting.ts";
import { backoffMs, isTransient, retrying, sleep } from "./retry.ts";
import { sealedHashResolver } from "./sealed-hash.ts";
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
  /** Ranges per block-hash index epoch for a store without an index (default: the format's 64). */
  hashIndexEpochRanges?: number;
}

export interface IndexerStatus {
  /**
   * "alarm": a reorg reached sealed data; the tail is no longer served (sealed history is).
   * "stopped": ended by `stop()` or by a configuration error (`lastError` says which).
   */
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
  /**
   * Rejects with the error that ended the indexer (a configuration error: wrong network, a start
   * height the node does not serve, another range size in the store); never resolves otherwise.
   * `lightedge origin` and `lightedge index` exit non-zero on it.
   */
  failed(): Promise<never>;
  /** The newest served block, or undefined (also while the alarm withholds the tail). */
  lastBlock(): TipInfo | undefined;
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
  let rejectFailed: (err: unknown) => void = () => {};
  const failedPromise = new Promise<never>((_, reject) => {
    rejectFailed = reject;
  });
  failedPromise.catch(() => {});
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
    halted: () => state?.alarm,
    // A hash below the tail: the store's hash index, else ask the node; the view verifies the answer.
    resolveHeight: sealedHashResolver({
      store: o.store,
      sealed,
      head: () => state?.sealer.head() ?? head,
      fallback: (displayHash) =>
        o.chain.block(displayHash).then(
          (b) => b.height,
          () => undefined,
        ),
    }),
  });

  const noteError = (where: string) => (err: unknown) => {
    lastError = `${where}: ${err instanceof Error ? err.message : String(err)}`;
    const kind = err instanceof LightedgeError ? err.kind : "network";
    if (where === "node") o.metrics?.nodeErrors.inc({ kind });
    o.log.warn({ err, where }, "indexer failure; retrying");
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
        { fork, depth, sealDepth: o.sealDepth, sealedTip: view.sealedTip() },
        "reorg reaches sealed ranges: following and sealing stopped, the tail is withheld (Unavailable), sealed history is still served; restart to rebuild from the first range that disagrees",
      );
    } else if (depth > o.sealDepth) {
      o.metrics?.deepTailReorgs.inc();
      o.log.error(
        { fork, depth, sealDepth: o.sealDepth },
        "reorg deeper than the seal depth inside the unsealed tail: rolled back to the fork point",
      );
    } else {
      o.log.warn({ fork, depth }, "reorg: rolled back to the fork point");
    }
  };

  /** The node follows the configured network (retrying while it is unreachable). */
  const checkNetwork = async () => {
    const info = await retrying(() => o.info.info(), noteError("node"), controller.signal);
    if (info.network !== o.network)
      throw new IndexerConfigError(
        "index.start",
        `node is on ${info.network} (chain "${info.chain}", genesis ${info.genesisHash ?? "not served"}) but lightedge is configured for ${o.network}`,
      );
  };

  /** One look at the node's network while running: throws only a configuration error. */
  const recheckNetwork = async () => {
    const info = await o.info.info().catch((err: unknown) => {
      if (isConfigurationError(err)) throw err;
      return undefined;
    });
    if (info && info.network !== o.network)
      throw new IndexerConfigError(
        "index.follow",
        `node is now on ${info.network} (chain "${info.chain}", genesis ${info.genesisHash ?? "not served"}) but lightedge is configured for ${o.network}`,
      );
  };

  const checkFloor = async (s: FollowState) => {
    if (s.tail.last() !== undefined || s.sealer.head()?.tip) return; // resuming: the floor was served
    const best = await retrying(() => o.chain.bestBlock(), noteError("node"), controller.signal);
    if (best.height < s.floor) return; // the node has not reached it yet: wait for it
    try {
      await retrying(() => o.chain.blockHash(s.floor), noteError("node"), controller.signal);
    } catch (err) {
      if (err instanceof LightedgeError && (err.kind === "above-tip" || err.kind === "not-found"))
        throw new IndexerConfigError(
          "index.start",
          `the node does not serve height ${s.floor} (its tip is ${best.height}, so its chain starts above it): start with --from at or above the node's first block`,
          { cause: err },
        );
      throw err;
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
          hashIndexEpochRanges: o.hashIndexEpochRanges,
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
      hashIndex: result.hashIndex,
      hashIndexEpochRanges: o.hashIndexEpochRanges,
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
      async checkNode(genesis) {
        if (genesis === undefined) return recheckNetwork();
        const hash = displayHex(genesis.wireHash);
        if (genesisMatches(o.network, hash)) return;
        throw new IndexerConfigError(
          "index.follow",
          `the node's block 0 is ${hash}, not the ${o.network} genesis block: the node is not on ${o.network}`,
        );
      },
    };
  };

  const run = async (s: FollowState) => {
    let failures = 0;
    let alarmChecked = false;
    while (!controller.signal.aborted) {
      try {
        const best = await o.chain.bestBlock();
        nodeTip = best.height;
        o.metrics?.nodeTipHeight.set(best.height);
        const outcome = await followStep(s, best);
        failures = 0;
        lastError = undefined;
        phase = outcome === "alarm" ? "alarm" : outcome === "idle" ? "following" : "syncing";
        o.metrics?.lagBlocks.set(Math.max(0, nodeTip - (view.lastBlock()?.height ?? -1)));
        o.metrics?.blocksPerSecond.set(rate.rate());
        if (outcome === "alarm" && !alarmChecked) {
          // A "reorg" into sealed data may be another node behind the same URL: say so instead.
          alarmChecked = true;
          await recheckNetwork();
          rejectSynced(new LightedgeError("chain-break", "indexer", s.alarm!));
        }
        if (outcome === "idle") {
          await s.sealer.flush();
          await s.sealer.refreshHead(HEAD_REFRESH_MS);
          if (nextRangeWaits(s)) resolveSynced();
        }
        if (outcome !== "progress") await sleep(o.pollMs, controller.signal);
      } catch (err) {
        // Configuration errors end the indexer (the process exits non-zero); anything else — a
        // node or store outage, a node answer that does not parse — is retried with backoff while
        // lastError fails /healthz with the reason.
        if (isConfigurationError(err)) throw err;
        noteError(err instanceof LightedgeError && err.where.startsWith("node") ? "node" : "index")(err);
        // Failures that are not outages (blocks the node does not have, answers that do not
        // parse) are what a node swapped for one on another chain looks like.
        if (!isTransient(err)) await recheckNetwork();
        await sleep(backoffMs(failures++), controller.signal);
      }
    }
  };

  /** True when the next range to seal is not final yet (nothing sealable is left behind). */
  const nextRangeWaits = (s: FollowState) => {
    const h = s.sealer.head();
    const next = h ? h.firstHeight + (h.rangeCount + 1) * h.rangeSize - 1 : floor + o.rangeSize - 1;
    return next > s.finalized || (view.lastBlock()?.height ?? -1) < next;
  };

  return {
    view,
    async start() {
      const fail = (err: unknown) => {
        phase = "stopped";
        lastError = err instanceof Error ? err.message : String(err);
        o.log.fatal({ err }, "indexer stopped");
        rejectFailed(err);
        return err;
      };
      try {
        await checkNetwork();
        await bootstrap();
        await checkFloor(state!);
      } catch (err) {
        throw controller.signal.aborted ? err : fail(err);
      }
      view.notifyTip();
      phase = "syncing";
      loop = run(state!).catch((err: unknown) => {
        throw fail(err);
      });
      loop.catch(() => {});
    },
    synced: () => Promise.race([syncedPromise, loop ?? new Promise<never>(() => {})]) as Promise<void>,
    failed: () => failedPromise,
    lastBlock: () => view.lastBlock(),
    async stop() {
      controller.abort();
      await loop?.catch(() => {});
      await state?.sealer.flush().catch(() => {});
      phase = "stopped";
    },
    status: () => ({
      phase,
      tip: view.lastBlock()?.height ?? -1,
      sealedTip: view.sealedTip(),
      nodeTip,
      floor: viewFloor(),
      blocksPerSecond: rate.rate(),
      alarm: state?.alarm,
      lastError,
    }),
    health() {
      const status = this.status();
      // Healthy only while the indexer runs (not while starting, after a fatal error or an alarm)
      // and its last poll succeeded.
      const running = status.phase === "syncing" || status.phase === "following";
      const ok = running && status.lastError === undefined;
      return { ok, status: status.alarm ?? status.lastError ?? status.phase, ...status };
    },
  };
}
