import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Logger } from "pino";
import { compareBytes, displayHex, wireHashOf } from "../../proto/bytes.ts";
import { LightedgeError } from "../../proto/errors.ts";
import type { HeadObject } from "../../proto/range/index.ts";
import { DEFAULT_EPOCH_RANGES, rangeIndexOf } from "../../proto/range/index.ts";
import { catchUpHistory } from "../history/catch-up.ts";
import { completeHistoryBlocks, historyRangeOf } from "../history/history-blocks.ts";
import { type AddressRow, HistoryDb } from "../history/history-db.ts";
import { HistoryWriter } from "../history/history-writer.ts";
import { RawSpool } from "../history/raw-spool.ts";
import { TailActivity } from "../history/tail-activity.ts";
import { genesisMatches } from "../node/network.ts";
import type { ChainSource, NodeInfoSource } from "../node/ports.ts";
import type { BlobStore } from "../store/index.ts";
import { bootstrapFromStore } from "./bootstrap.ts";
import type { ChainView, TipInfo } from "./chain-view.ts";
import { codecOptions } from "./codec-options.ts";
import { IndexerConfigError, isConfigurationError } from "./config-error.ts";
import { deferredSealer } from "./deferred-sealer.ts";
import { type FollowState, followStep, type IndexHooks } from "./follow-step.ts";
import { createLevelSweeper } from "./level-sweeper.ts";
import { createRateMeter } from "./rate-meter.ts";
import type { HealthReport, IndexMetrics } from "./reporting.ts";
import { backoffMs, isTransient, retrying, sleep } from "./retry.ts";
import { sealedHashResolver } from "./sealed-hash.ts";
import { createSealedReader } from "./sealed-reader.ts";
import { createSealer } from "./sealer.ts";
import { createTail, type IndexedBlock } from "./tail.ts";
import { createTailLog } from "./tail-log.ts";
import { restoreTail } from "./tail-restore.ts";
import { createChainView, type IndexView } from "./view.ts";

/** What the origin's History service reads (origin/serve): address records above a height. */
export interface IndexHistory {
  /**
   * The records of `keys` at heights above `above` through the served tip: sealed ones from the
   * history database, the tail's computed from its blocks. Unavailable while nothing is served;
   * too-large past `maxRecords` records (the caller's limit) or past `tailRecordsMax`, whichever is
   * fewer.
   */
  tailAddresses(
    keys: readonly Uint8Array[],
    above: number,
    maxRecords?: number,
  ): Promise<{ tip: TipInfo; records: AddressRow[] }>;
}

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
  /** Blocks per node batch during sync, at most (default 50). */
  chunkSize?: number;
  /** Raw block bytes in flight during sync (default: fetch-pipeline.ts DEFAULT_FETCH_BUDGET_BYTES). */
  fetchBudgetBytes?: number;
  /** Ranges uploading at once (default 4). */
  uploadsInFlight?: number;
  /** Ranges per block-hash index epoch for a store without an index (default: the format's 64). */
  hashIndexEpochRanges?: number;
  /**
   * Node-free history (origin/history, proto/range-format.md §Node-free history): raw blocks,
   * transaction tables and the transaction and address indexes, with their database in the data
   * directory. Off (the default here; `lightedge origin` turns it on): heads name none.
   */
  history?: boolean;
  /**
   * How long index levels a head no longer names stay in the store before they are deleted
   * (level-sweeper.ts); undefined: kept forever.
   */
  supersededGraceMs?: number;
  /** Ranges per bundle (proto/range/bundles.ts; default DEFAULT_BUNDLE_RANGES); 0: none. */
  bundleRanges?: number;
  /** Records one TailAddresses answer may hold, at most (default TAIL_RECORDS_MAX). */
  tailRecordsMax?: number;
}

/**
 * What one TailAddresses answer may hold: 200,000 records, ≈ 21 MB on the wire and ≈ 60 MB of rows
 * while it is built. Above the edge's sealed tip that is days of a busy address's activity; above
 * index levels that lag the head while the origin catches up (origin/history/level-schedule.ts) it
 * can be a busy address's whole history — millions of records at mainnet height, which would take
 * the origin past its memory. The edge then asks the origin for the whole answer (the node's).
 */
export const TAIL_RECORDS_MAX = 200_000;

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
  /** Address records above a sealed height, the tail's included (undefined: history is off). */
  readonly history: IndexHistory | undefined;
  stop(): Promise<void>;
  status(): IndexerStatus;
  health(): HealthReport;
}

export function createIndexer(o: IndexerOptions): Indexer {
  return new NodeIndexer(o);
}

/** A promise with its settle functions, rejections pre-handled (callers observe them when they ask). */
/** Two runs of rows each in a level's order (address, height, position, kind, index), merged. */
function mergeRows(a: AddressRow[], b: AddressRow[]): AddressRow[] {
  if (a.length === 0) return b;
  if (b.length === 0) return a;
  return [...a, ...b].sort(
    (x, y) =>
      compareBytes(x.key, y.key) ||
      x.height - y.height ||
      x.txIndex - y.txIndex ||
      x.kind - y.kind ||
      x.n - y.n,
  );
}

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  promise.catch(() => {});
  return { promise, resolve, reject };
}

/**
 * The indexer's state machine, its state named: `phase` goes starting → syncing ⇄ following (or
 * alarm) → stopped; `head` is the store's head before the sealer runs, `follow` the state the
 * follow loop steps (follow-step.ts), `loop` that loop while it runs.
 */
class NodeIndexer implements Indexer {
  readonly view: IndexView;
  readonly #o: IndexerOptions;
  /** First height indexed: `--from` rounded up to a range boundary. */
  readonly #floor: number;
  readonly #tail = createTail();
  readonly #tailLog: ReturnType<typeof createTailLog>;
  readonly #sealed: ReturnType<typeof createSealedReader>;
  readonly #rate = createRateMeter();
  readonly #controller = new AbortController();
  readonly #failed = deferred<never>();
  readonly #synced = deferred<void>();
  #phase: IndexerStatus["phase"] = "starting";
  #head: HeadObject | null = null;
  /** Node-free history is still catching up (nothing is sealed until it is: deferred-sealer.ts). */
  #historyPending = false;
  #follow: FollowState | undefined;
  #nodeTip = -1;
  #lastError: string | undefined;
  #loop: Promise<void> | undefined;
  readonly #historyDb: HistoryDb | undefined;
  /** The raw bytes of the ranges being filled, on disk until they seal (history on). */
  readonly #rawSpool: RawSpool | undefined;
  /** Each tail block's address records, computed once (TailAddresses asks for them on every call). */
  readonly #tailActivity = new TailActivity();
  readonly history: IndexHistory | undefined;

  constructor(o: IndexerOptions) {
    this.#o = o;
    this.#floor = Math.ceil(o.fromHeight / o.rangeSize) * o.rangeSize;
    this.#tailLog = createTailLog(o.dataDir, o.network);
    this.#sealed = createSealedReader(o.store, o.network, o.rangeSize);
    if (o.history) {
      mkdirSync(o.dataDir, { recursive: true });
      this.#historyDb = new HistoryDb(join(o.dataDir, `history-${o.network}.sqlite`), {
        network: o.network,
        rangeSize: o.rangeSize,
      });
      this.#rawSpool = new RawSpool(join(o.dataDir, "raw-spool"), o.rangeSize);
      this.history = {
        tailAddresses: (keys, above, maxRecords) => this.#tailAddresses(keys, above, maxRecords),
      };
    }
    const head = () => this.#follow?.sealer.head() ?? this.#head;
    this.view = createChainView({
      tail: this.#tail,
      sealed: this.#sealed,
      rangeSize: o.rangeSize,
      head,
      floor: () => this.#viewFloor(),
      halted: () => this.#follow?.alarm,
      // A hash below the tail: the store's hash index, else ask the node; the view verifies the answer.
      resolveHeights: sealedHashResolver({
        store: o.store,
        head,
        fallback: (displayHash) =>
          o.chain.block(displayHash).then(
            (b) => b.height,
            () => undefined,
          ),
      }),
    });
  }

  async start(): Promise<void> {
    try {
      await this.#checkNetwork();
      await this.#bootstrap();
      await this.#checkFloor(this.#follow!);
    } catch (err) {
      throw this.#controller.signal.aborted ? err : this.#fail(err);
    }
    this.view.notifyTip();
    this.#phase = "syncing";
    this.#loop = this.#run(this.#follow!).catch((err: unknown) => {
      throw this.#fail(err);
    });
    this.#loop.catch(() => {});
  }

  synced(): Promise<void> {
    return Promise.race([this.#synced.promise, this.#loop ?? new Promise<never>(() => {})]) as Promise<void>;
  }

  failed(): Promise<never> {
    return this.#failed.promise;
  }

  lastBlock(): TipInfo | undefined {
    return this.view.lastBlock();
  }

  async stop(): Promise<void> {
    this.#controller.abort();
    await this.#loop?.catch(() => {});
    await this.#follow?.sealer.flush().catch(() => {});
    this.#historyDb?.close();
    this.#rawSpool?.close();
    this.#phase = "stopped";
  }

  async #tailAddresses(keys: readonly Uint8Array[], above: number, maxRecords?: number) {
    const db = this.#historyDb!;
    const tip = this.view.lastBlock();
    if (tip === undefined || this.#follow === undefined)
      throw new LightedgeError("unavailable", "index.history", "no block is served yet");
    // Spends in the tail are resolved against the database: until it holds every sealed range,
    // an old output spent in the tail would be missed.
    if (this.#historyPending)
      throw new LightedgeError(
        "unavailable",
        "index.history",
        "history is catching up with the store, retry",
      );
    const applied = db.applied()?.height ?? -1;
    // Sealed heights (the database holds every range applied, heads written or not), then the
    // tail above them: every block above the database's last is still in the tail.
    const max = Math.min(maxRecords ?? Infinity, this.#o.tailRecordsMax ?? TAIL_RECORDS_MAX);
    const tooMany = () =>
      new LightedgeError(
        "too-large",
        "index.history",
        `TailAddresses: more than ${max} address records above height ${above}`,
      );
    const sealed: AddressRow[] = [];
    if (above < applied)
      for (const row of db.recordsAbove(keys, above)) {
        if (sealed.length === max) throw tooMany();
        sealed.push(row);
      }
    const tail: IndexedBlock[] = [];
    for (let h = Math.max(above, applied) + 1; h <= tip.height; h++) {
      const block = this.#tail.get(h);
      if (block === undefined)
        throw new LightedgeError("unavailable", "index.history", `block ${h} is not held, retry`);
      tail.push(block);
    }
    // Blocks restored from the tail log have no history yet: fetched again once, then kept.
    const missing = tail.filter((b) => b.history === undefined);
    const fetched = await completeHistoryBlocks(this.#o.chain, missing);
    missing.forEach((b, k) => {
      b.raw = fetched[k]!.raw;
      b.history = fetched[k]!.history;
    });
    const fromTail = this.#tailActivity.records(
      tail.map((b) => b.history!),
      keys,
      (txid, n) => db.output(txid, n),
    );
    if (sealed.length + fromTail.length > max) throw tooMany();
    return { tip, records: mergeRows(sealed, fromTail) };
  }

  status(): IndexerStatus {
    return {
      phase: this.#phase,
      tip: this.view.lastBlock()?.height ?? -1,
      sealedTip: this.view.sealedTip(),
      nodeTip: this.#nodeTip,
      floor: this.#viewFloor(),
      blocksPerSecond: this.#rate.rate(),
      alarm: this.#follow?.alarm,
      lastError: this.#lastError,
    };
  }

  health(): HealthReport {
    const status = this.status();
    // Healthy only while the indexer runs (not while starting, after a fatal error or an alarm)
    // and its last poll succeeded.
    const running = status.phase === "syncing" || status.phase === "following";
    const ok = running && status.lastError === undefined;
    return { ok, status: status.alarm ?? status.lastError ?? status.phase, ...status };
  }

  #viewFloor(): number {
    return this.#head?.firstHeight ?? this.#floor;
  }

  #fail(err: unknown): unknown {
    this.#phase = "stopped";
    this.#lastError = err instanceof Error ? err.message : String(err);
    this.#o.log.fatal({ err }, "indexer stopped");
    this.#failed.reject(err);
    return err;
  }

  #noteError(where: string): (err: unknown) => void {
    return (err) => {
      this.#lastError = `${where}: ${err instanceof Error ? err.message : String(err)}`;
      const kind = err instanceof LightedgeError ? err.kind : "network";
      if (where === "node") this.#o.metrics?.nodeErrors.inc({ kind });
      this.#o.log.warn({ err, where }, "indexer failure; retrying");
    };
  }

  #onSealed(next: HeadObject): void {
    const o = this.#o;
    this.#head = next;
    const tip = next.tip!.height;
    this.#tail.dropThrough(tip);
    this.#rawSpool?.dropThrough(tip);
    o.metrics?.sealedHeight.set(tip);
    o.metrics?.rangesSealed.inc();
    const s = this.#follow;
    if (s && s.loggedFrom <= tip) {
      const first = this.#tail.first();
      const last = this.#tail.last();
      s.log.rewrite(first && last ? this.#tail.slice(first.height, last.height) : []);
      s.loggedFrom = first ? first.height : Infinity;
    }
    o.log.debug({ sealedTip: tip, ranges: next.rangeCount }, "head advanced");
  }

  #onAppended(blocks: readonly IndexedBlock[]): void {
    const m = this.#o.metrics;
    this.#rate.add(blocks.length);
    m?.blocksIndexed.inc(blocks.length);
    const tip = blocks[blocks.length - 1]!.height;
    m?.tipHeight.set(tip);
    m?.lagBlocks.set(Math.max(0, this.#nodeTip - tip));
    m?.blocksPerSecond.set(this.#rate.rate());
    this.view.notifyTip();
  }

  #onReorg({ fork, depth, deep }: { fork: number; depth: number; deep: boolean }): void {
    const o = this.#o;
    o.metrics?.reorgs.inc();
    o.metrics?.reorgDepth.set(depth);
    if (deep) {
      o.metrics?.alarm.set({ reason: "deep-reorg" }, 1);
      o.log.error(
        { fork, depth, sealDepth: o.sealDepth, sealedTip: this.view.sealedTip() },
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
  }

  /** The node follows the configured network (retrying while it is unreachable). */
  async #checkNetwork(): Promise<void> {
    const o = this.#o;
    const info = await retrying(() => o.info.info(), this.#noteError("node"), this.#controller.signal);
    if (info.network !== o.network)
      throw new IndexerConfigError(
        "index.start",
        `node is on ${info.network} (chain "${info.chain}", genesis ${info.genesisHash ?? "not served"}) but lightedge is configured for ${o.network}`,
      );
  }

  /** One look at the node's network while running: throws only a configuration error. */
  async #recheckNetwork(): Promise<void> {
    const o = this.#o;
    const info = await o.info.info().catch((err: unknown) => {
      if (isConfigurationError(err)) throw err;
      return undefined;
    });
    if (info && info.network !== o.network)
      throw new IndexerConfigError(
        "index.follow",
        `node is now on ${info.network} (chain "${info.chain}", genesis ${info.genesisHash ?? "not served"}) but lightedge is configured for ${o.network}`,
      );
  }

  async #checkFloor(s: FollowState): Promise<void> {
    if (s.tail.last() !== undefined || s.sealer.head()?.tip) return; // resuming: the floor was served
    const chain = this.#o.chain;
    const signal = this.#controller.signal;
    const best = await retrying(() => chain.bestBlock(), this.#noteError("node"), signal);
    if (best.height < s.floor) return; // the node has not reached it yet: wait for it
    try {
      await retrying(() => chain.blockHash(s.floor), this.#noteError("node"), signal);
    } catch (err) {
      if (err instanceof LightedgeError && (err.kind === "above-tip" || err.kind === "not-found"))
        throw new IndexerConfigError(
          "index.start",
          `the node does not serve height ${s.floor} (its tip is ${best.height}, so its chain starts above it): start with --from at or above the node's first block`,
          { cause: err },
        );
      throw err;
    }
  }

  async #bootstrap(): Promise<void> {
    const o = this.#o;
    const result = await retrying(
      () =>
        bootstrapFromStore({
          store: o.store,
          chain: o.chain,
          sealed: this.#sealed,
          network: o.network,
          rangeSize: o.rangeSize,
          concurrency: o.concurrency,
          hashIndexEpochRanges: o.hashIndexEpochRanges,
          log: o.log,
        }),
      this.#noteError("bootstrap"),
      this.#controller.signal,
    );
    const writer =
      this.#historyDb === undefined
        ? undefined
        : new HistoryWriter({
            db: this.#historyDb,
            network: o.network,
            rangeSize: o.rangeSize,
            firstIndex: (result.head?.firstHeight ?? this.#floor) / o.rangeSize,
            epochRanges:
              result.head?.history?.epochRanges ??
              result.head?.hashIndex?.epochRanges ??
              o.hashIndexEpochRanges ??
              DEFAULT_EPOCH_RANGES,
            codec: codecOptions,
          });
    const head = result.head;
    this.#head = head;
    const sweeper =
      o.supersededGraceMs === undefined
        ? undefined
        : createLevelSweeper({
            store: o.store,
            graceMs: o.supersededGraceMs,
            onError: (err) =>
              o.log.warn({ err }, "deleting superseded index levels failed; trying again later"),
          });
    const sealedTip = head?.tip
      ? { height: head.tip.height, wireHash: wireHashOf(head.tip.displayHash) }
      : undefined;
    const tail = this.#tail;
    const loggedFrom = restoreTail({
      log: this.#tailLog,
      tail,
      sealedTip,
      floor: this.#floor,
      logger: o.log,
    });
    o.metrics?.sealedHeight.set(sealedTip?.height ?? -1);
    const sealerFor = (from: HeadObject | null) =>
      createSealer({
        store: o.store,
        info: o.info,
        network: o.network,
        rangeSize: o.rangeSize,
        maxInFlight: o.uploadsInFlight ?? 4,
        head: from,
        firstHeight: this.#floor,
        onUploaded: (bytes) => o.metrics?.uploadedBytes.inc(bytes),
        onSealed: (next) => this.#onSealed(next),
        onStoreError: this.#noteError("store"),
        rangeObjects: o.hooks?.rangeObjects,
        hashIndex: result.hashIndex,
        hashIndexEpochRanges: o.hashIndexEpochRanges,
        sweeper,
        bundleRanges: o.bundleRanges,
        history: writer && {
          writer,
          complete: (blocks) =>
            historyRangeOf(
              o.chain,
              blocks,
              this.#rawSpool?.object(rangeIndexOf(blocks[0]!.height, o.rangeSize)),
            ),
        },
      });
    // History catches up in the background: serving and following start now, sealing once it is
    // done (deferred-sealer.ts). Its head names the history levels it wrote.
    this.#historyPending = writer !== undefined;
    const sealer =
      writer === undefined
        ? sealerFor(head)
        : deferredSealer(
            head,
            retrying(
              () =>
                catchUpHistory({
                  db: this.#historyDb!,
                  writer,
                  store: o.store,
                  chain: o.chain,
                  sealed: this.#sealed,
                  head,
                  log: o.log,
                  signal: this.#controller.signal,
                }),
              this.#noteError("history"),
              this.#controller.signal,
            ).then((caughtUp) => {
              this.#head = caughtUp;
              this.#historyPending = false;
              return sealerFor(caughtUp);
            }),
          );
    this.#follow = {
      chain: o.chain,
      tail,
      log: this.#tailLog,
      sealer,
      rangeSize: o.rangeSize,
      sealDepth: o.sealDepth,
      concurrency: o.concurrency,
      chunkSize: o.chunkSize ?? 50,
      fetchBudgetBytes: o.fetchBudgetBytes,
      history: writer !== undefined,
      rawSpool: this.#rawSpool,
      floor: this.#viewFloor(),
      finalized: -1,
      loggedFrom,
      alarm: undefined,
      hooks: o.hooks ?? {},
      signal: this.#controller.signal,
      onAppended: (blocks) => this.#onAppended(blocks),
      onReorg: (r) => this.#onReorg(r),
      checkNode: async (genesis) => {
        if (genesis === undefined) return this.#recheckNetwork();
        const hash = displayHex(genesis.wireHash);
        if (genesisMatches(o.network, hash)) return;
        throw new IndexerConfigError(
          "index.follow",
          `the node's block 0 is ${hash}, not the ${o.network} genesis block: the node is not on ${o.network}`,
        );
      },
    };
  }

  async #run(s: FollowState): Promise<void> {
    const o = this.#o;
    const signal = this.#controller.signal;
    let failures = 0;
    let alarmChecked = false;
    while (!signal.aborted) {
      try {
        const best = await o.chain.bestBlock();
        this.#nodeTip = best.height;
        o.metrics?.nodeTipHeight.set(best.height);
        const outcome = await followStep(s, best);
        failures = 0;
        this.#lastError = undefined;
        this.#phase = outcome === "alarm" ? "alarm" : outcome === "idle" ? "following" : "syncing";
        o.metrics?.lagBlocks.set(Math.max(0, this.#nodeTip - (this.view.lastBlock()?.height ?? -1)));
        o.metrics?.blocksPerSecond.set(this.#rate.rate());
        if (outcome === "alarm" && !alarmChecked) {
          // A "reorg" into sealed data may be another node behind the same URL: say so instead.
          alarmChecked = true;
          await this.#recheckNetwork();
          this.#synced.reject(new LightedgeError("chain-break", "indexer", s.alarm!));
        }
        if (outcome === "idle") {
          await s.sealer.flush();
          await s.sealer.refreshHead(HEAD_REFRESH_MS);
          // Synced once bundles and history levels are caught up too: the idle refresh writes them.
          if (
            this.#nextRangeWaits(s) &&
            !this.#historyPending &&
            !s.sealer.bundlesBehind() &&
            !s.sealer.levelsBehind()
          )
            this.#synced.resolve();
        }
        if (outcome !== "progress") await sleep(o.pollMs, signal);
      } catch (err) {
        // Configuration errors end the indexer (the process exits non-zero); anything else — a
        // node or store outage, a node answer that does not parse — is retried with backoff while
        // lastError fails /healthz with the reason.
        if (isConfigurationError(err)) throw err;
        this.#noteError(err instanceof LightedgeError && err.where.startsWith("node") ? "node" : "index")(
          err,
        );
        // Failures that are not outages (blocks the node does not have, answers that do not
        // parse) are what a node swapped for one on another chain looks like.
        if (!isTransient(err)) await this.#recheckNetwork();
        await sleep(backoffMs(failures++), signal);
      }
    }
  }

  /** True when the next range to seal is not final yet (nothing sealable is left behind). */
  #nextRangeWaits(s: FollowState): boolean {
    const h = s.sealer.head();
    const next = h
      ? h.firstHeight + (h.rangeCount + 1) * h.rangeSize - 1
      : this.#floor + this.#o.rangeSize - 1;
    return next > s.finalized || (this.view.lastBlock()?.height ?? -1) < next;
  }
}
