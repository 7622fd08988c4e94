import type { IndexerStatus } from "../index/index.ts";
import type { RpcObserver } from "../serve/index.ts";
import type { StatusEvent, StatusSource } from "../status/status-recorder.ts";

const MAX_EVENTS = 50;

export interface OriginStatusSource extends StatusSource {
  /** Wraps the server's observer so every finished RPC counts as a request. */
  countRequests(inner?: RpcObserver): RpcObserver;
  /** The indexer's hooks report here: the newest appended height, and reorgs (fork heights). */
  appended(height: number): void;
  rolledBack(fork: number): void;
  note(text: string): void;
}

/**
 * The status page's view of a running origin: tips from the indexer's status, ranges published
 * from the sealed tip (ranges are aligned from the floor), reorgs seen through the indexer's hooks,
 * the RPC request count from the server's observer, and recent events (reorgs, alarms).
 */
export function createOriginStatusSource(status: () => IndexerStatus, rangeSize: number): OriginStatusSource {
  const events: StatusEvent[] = [];
  let requests = 0;
  let reorgs = 0;
  let top = -1;
  let alarm: string | undefined;
  const note = (text: string) => {
    events.push({ at: Date.now(), text });
    if (events.length > MAX_EVENTS) events.splice(0, events.length - MAX_EVENTS);
  };
  return {
    sample() {
      const s = status();
      if (s.alarm !== undefined && s.alarm !== alarm) note(`alarm: ${s.alarm}`);
      alarm = s.alarm;
      const sealed = s.sealedTip >= s.floor ? s.sealedTip - s.floor + 1 : 0;
      return {
        nodeTip: s.nodeTip,
        indexedTip: s.tip,
        sealedTip: s.sealedTip,
        rangesPublished: Math.floor(sealed / rangeSize),
        reorgs,
        requests,
      };
    },
    events: () => events.slice(),
    countRequests: (inner) => ({
      observe(rpc, code, seconds) {
        requests++;
        inner?.observe(rpc, code, seconds);
      },
      fastPath: (rpc, protocol) => inner?.fastPath?.(rpc, protocol),
    }),
    appended(height) {
      top = height;
    },
    rolledBack(fork) {
      reorgs++;
      note(`reorg: rolled back ${Math.max(0, top - fork)} block(s) to height ${fork}`);
      top = fork;
    },
    note,
  };
}
