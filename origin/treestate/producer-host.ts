import { equalBytes } from "../../proto/bytes.ts";
import { unpackLeaves } from "./leaf-scan.ts";
import { createTreeStateProducer, type ProducerBlock, type TreeStateProducer } from "./producer.ts";
import type { AppendedBlock, FromWorker, ToWorker } from "./producer-protocol.ts";
import { createStoredPrefix } from "./stored-prefix.ts";
import { createSubtreeLedger } from "./subtree-ledger.ts";

/** Work slice between yields, so tail lookups are answered while a backlog is hashed. */
const SLICE_MS = 8;

type Seal = Extract<ToWorker, { type: "seal" }>;

/**
 * The tree-state worker's logic (producer-worker.ts is only its thread entry): appended blocks are
 * queued and hashed in slices; a rollback applies at once (queued blocks above it are dropped, the
 * frontier restarts from the snapshot at the fork); a sealed range's objects are built once its
 * last block is hashed and posted back to be stored; snapshots stay until that write is confirmed.
 */
export function createProducerHost(post: (m: FromWorker) => void) {
  let producer: TreeStateProducer | undefined;
  let queue: AppendedBlock[] = [];
  let head = 0;
  let seals: Seal[] = [];
  let sealing: Promise<void> = Promise.resolve();
  const metas = new Map<number, ProducerBlock>();
  let scheduled = false;
  let prefix: ReturnType<typeof createStoredPrefix> | undefined;
  let rollbacks = 0;
  const progress = (last: number) => post({ type: "progress", last, rollbacks });

  const fail = (err: unknown) => {
    producer = undefined;
    queue = [];
    head = 0;
    seals = [];
    post({ type: "failed", message: err instanceof Error ? err.message : String(err) });
  };

  const build = async (s: Seal) => {
    const p = producer;
    if (p === undefined) return;
    const blocks: ProducerBlock[] = [];
    for (let h = s.first; h <= s.last; h++) {
      const b = metas.get(h);
      if (b !== undefined) blocks.push(b);
    }
    const last = blocks[blocks.length - 1];
    if (blocks.length !== s.last - s.first + 1 || !last || !equalBytes(last.wireHash, s.lastWireHash)) {
      if (s.first >= (p.coveredFrom() ?? Infinity))
        post({ type: "warning", message: `range ${s.index}: sealed blocks differ from the tracked ones` });
      return;
    }
    const checks = {
      state: p.tailState(s.last),
      subtrees: blocks.flatMap((b) => p.completedAt(b.height).map((c) => ({ ...c, height: b.height }))),
    };
    const objects = await p.rangeObjects(s.index, blocks);
    if (objects.length > 0) post({ type: "objects", index: s.index, last: s.last, objects, checks });
    else release(s.index);
  };

  /** Builds, in range order, every sealed range whose blocks are hashed. */
  const startSeals = () => {
    const done = producer?.last() ?? -1;
    const ready = seals.filter((s) => s.last <= done).sort((a, b) => a.index - b.index);
    seals = seals.filter((s) => s.last > done);
    for (const s of ready) sealing = sealing.then(() => build(s)).catch(fail);
  };

  const release = (index: number) => {
    if (prefix === undefined) return;
    prefix.mark(index);
    const keep = prefix.through();
    producer?.release(keep);
    for (const h of metas.keys()) if (h < keep) metas.delete(h);
  };

  const pump = () => {
    scheduled = false;
    const p = producer;
    if (p === undefined) return;
    const end = performance.now() + SLICE_MS;
    const before = p.last();
    try {
      while (head < queue.length && performance.now() < end) {
        const a = queue[head++]!;
        const b: ProducerBlock = { height: a.height, wireHash: a.wireHash, time: a.time };
        p.onAppend([{ ...b, leaves: unpackLeaves(a.leaves) }]);
        if (p.last() === a.height) metas.set(a.height, b);
      }
    } catch (err) {
      fail(err);
      return;
    }
    if (head > 4096 || head === queue.length) {
      queue = queue.slice(head);
      head = 0;
    }
    if (p.last() !== before) progress(p.last());
    startSeals();
    schedule();
  };

  const schedule = () => {
    if (scheduled || head >= queue.length) return;
    scheduled = true;
    setImmediate(pump);
  };

  const rollback = (height: number) => {
    queue = queue.slice(head).filter((b) => b.height <= height);
    head = 0;
    seals = seals.filter((s) => s.last <= height);
    for (const h of metas.keys()) if (h > height) metas.delete(h);
    const p = producer;
    if (p === undefined || p.last() <= height) return;
    p.onRollback(height);
    if (p.last() < 0) fail(new Error(`rollback to ${height} below the held snapshots`));
    else progress(p.last());
  };

  return (m: ToWorker) => {
    switch (m.type) {
      case "start": {
        const ledger = createSubtreeLedger();
        for (const r of m.roots) ledger.add(r.pool, r.index, r.root);
        producer = createTreeStateProducer({ ...m.config, ledger, retain: true });
        producer.start(m.start);
        prefix = createStoredPrefix(
          m.config.rangeSize,
          Math.floor((m.start.height + 1) / m.config.rangeSize),
        );
        progress(m.start.height);
        return;
      }
      case "append":
        if (producer === undefined) return;
        for (const b of m.blocks) queue.push(b);
        schedule();
        return;
      case "rollback":
        rollbacks = m.rollbacks;
        return rollback(m.height);
      case "seal":
        seals.push(m);
        return startSeals();
      case "stored":
        return release(m.index);
      case "tail":
        return post({ type: "tail-result", id: m.id, state: producer?.tailState(m.height) });
      case "flush":
        void sealing.then(() => post({ type: "flushed", id: m.id }));
        return;
    }
  };
}
