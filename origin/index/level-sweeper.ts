import { headHistoryLevels } from "../../proto/history/layout.ts";
import { type HeadObject, headHashLevels, rangeFolder } from "../../proto/range/index.ts";
import { levelObjectKey } from "../../proto/range/keys.ts";
import type { BlobStore } from "../store/index.ts";

/**
 * Index levels no head names any longer, deleted once they have been superseded for a grace period.
 *
 * Every head names its index levels by span (proto/range-format.md §Hash index, Levels; the
 * history indexes use the same spans): the recent level is rewritten under a new span with each
 * head, the base level with each epoch. The superseded folders stay readable for readers that still
 * hold an older head (the edge keeps its head for seconds, a request runs for at most its deadline),
 * then they are garbage: after a sync of 200,000 dev blocks, 1.09 GB of superseded levels beside
 * 96 MB of live ones; a store following the tip rewrites the recent level with every range, so
 * left alone the garbage grows with the square of an epoch's ranges.
 *
 * Only the kinds a head describes in a version this code knows are swept: a head without a hash
 * index or history (or of a newer version) says nothing of what is live there. A folder is deleted
 * only if the newest head still does not name it when its grace runs out, so a level written for a
 * head not yet published (a crash between the two, then a restart) is never lost for good: the
 * restart rewrites it under the same span, and the head names it again.
 */
export interface LevelSweeperOptions {
  store: Pick<BlobStore, "list" | "delete">;
  /** How long a superseded folder stays readable. */
  graceMs: number;
  /** Objects deleted per call, about (default KEYS_PER_SWEEP). */
  keysPerSweep?: number;
  /** A listing or deletion failed: the sweeper tries again after the next head. */
  onError(err: unknown): void;
  now?: () => number;
}

export interface LevelSweeper {
  /**
   * Called after each head is written, in head order and never while index objects for a later
   * head are being written (the sealer's head chain): notes what the head superseded and deletes
   * what has been superseded for `graceMs`. Never throws (failures go to `onError`).
   */
  afterHead(head: HeadObject): Promise<{ deleted: string[] }>;
}

/**
 * Objects deleted per call, about (a folder is never split): the sweep runs in the sealer's head
 * chain, so a store that piled up superseded levels for a long time (tens of thousands of shards)
 * is cleaned over several heads and idle refreshes, not while one head waits for all of it.
 */
const KEYS_PER_SWEEP = 10_000;

/** The index kinds whose levels live in per-span folders (proto/range/keys.ts levelObjectKey). */
type Kind = "hash" | "txid" | "taddr";

/**
 * The level folders a head names, per kind it describes: `v1/<network>/r<size>/<kind>/<FIRST>-<LAST>/`.
 * A kind the head does not describe (or in a version unknown here) is absent from the result.
 */
export function headLevelFolders(head: HeadObject): Map<Kind, Set<string>> {
  const folders = new Map<Kind, Set<string>>();
  const hash = headHashLevels(head);
  if (hash !== undefined)
    folders.set("hash", new Set(hash.map((level) => levelObjectKey(level, "hash", ""))));
  const history = headHistoryLevels(head);
  if (history !== undefined) {
    folders.set("txid", new Set(history.map((level) => levelObjectKey(level.txid, "txid", ""))));
    folders.set("taddr", new Set(history.map((level) => levelObjectKey(level.taddr, "taddr", ""))));
  }
  return folders;
}

/** The level folder a stored key is in, or undefined when it is in none (`<kind>/<span>/<name>`). */
function folderOf(key: string, kindPrefix: string): string | undefined {
  const end = key.indexOf("/", kindPrefix.length);
  return end < 0 ? undefined : key.slice(0, end + 1);
}

export function createLevelSweeper(o: LevelSweeperOptions): LevelSweeper {
  const now = o.now ?? Date.now;
  /** Superseded folders, with when they were first seen so. */
  const superseded = new Map<string, number>();
  let previous: Map<Kind, Set<string>> | undefined;
  /**
   * Each kind's folders in the store, listed once (what earlier runs left behind). The listing runs
   * beside the head chain, as a listing of a long-lived store may take many calls; its folders are
   * noted by a later call, against that call's head, so none is noted before it is superseded.
   */
  const listings = new Map<Kind, { folders?: string[]; failed?: boolean }>();

  const list = (head: HeadObject, kind: Kind) => {
    const listing: { folders?: string[]; failed?: boolean } = {};
    listings.set(kind, listing);
    const prefix = `${rangeFolder(head.network, head.rangeSize)}${kind}/`;
    o.store.list(prefix).then(
      (keys) => {
        listing.folders = [...new Set(keys.map((k) => folderOf(k, prefix)).filter((f) => f !== undefined))];
      },
      (err: unknown) => {
        listing.failed = true;
        o.onError(err);
      },
    );
  };

  return {
    async afterHead(head) {
      const live = headLevelFolders(head);
      const liveFolders = new Set([...live.values()].flatMap((folders) => [...folders]));
      const isLive = (folder: string) => liveFolders.has(folder);
      const at = now();
      const note = (folder: string) => {
        if (!isLive(folder) && !superseded.has(folder)) superseded.set(folder, at);
      };
      for (const kind of live.keys()) {
        const listing = listings.get(kind);
        if (listing === undefined || listing.failed) list(head, kind);
        else if (listing.folders !== undefined) {
          for (const folder of listing.folders) note(folder);
          listing.folders = [];
        }
      }
      // Only kinds the newest head describes: one it stopped describing may be a newer writer's.
      for (const [kind, folders] of previous ?? []) if (live.has(kind)) for (const f of folders) note(f);
      previous = live;
      const deleted: string[] = [];
      let keys = 0;
      for (const [folder, since] of superseded) {
        if (isLive(folder)) superseded.delete(folder);
        else if (at - since >= o.graceMs && keys < (o.keysPerSweep ?? KEYS_PER_SWEEP)) {
          try {
            const inFolder = await o.store.list(folder);
            await o.store.delete(inFolder);
            keys += inFolder.length;
            superseded.delete(folder);
            deleted.push(folder);
          } catch (err) {
            o.onError(err);
          }
        }
      }
      return { deleted };
    },
  };
}
