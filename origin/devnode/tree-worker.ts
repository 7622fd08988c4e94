import { parentPort } from "node:worker_threads";
import { hasherFor } from "../trees/hashers.ts";
import {
  createTreeService,
  type FromTreeWorker,
  type ToTreeWorker,
  type TreeService,
} from "./tree-service.ts";

/**
 * Thread entry of the dev node's tree worker (tree-host.ts starts it): hashing never blocks the
 * JSON-RPC server, which `npm start` runs in the same process as the origin. Between requests it
 * walks towards the tip in short slices (SLICE_MS), so later requests find their heights computed.
 */
/** Background slice: short, so a request waits little behind the walk. */
const SLICE_MS = 10;
let service: TreeService | undefined;
let working = false;
const post = (m: FromTreeWorker) => parentPort!.postMessage(m);

let stuck = false;

function work() {
  working = false;
  try {
    if (service && !stuck && !service.work(SLICE_MS)) schedule();
  } catch {
    // A block the engine cannot hash: requests reaching it answer the error; stop walking.
    stuck = true;
  }
}

function schedule() {
  if (working) return;
  working = true;
  setImmediate(work);
}

parentPort?.on("message", (m: ToTreeWorker) => {
  const id = "id" in m ? m.id : -1;
  try {
    if (m.type === "init") {
      service = createTreeService(m.init);
      // The hash tables take seconds to build (origin/trees/hashers.ts): build them now, while the
      // node is starting, rather than inside the first z_gettreestate a client is waiting on.
      for (const family of ["sapling", "orchard"] as const) hasherFor(family).emptyRoot(0);
      post({ type: "warm" });
    } else if (m.type === "event") {
      service!.apply(m.event);
      stuck = false; // the chain changed: the walk may get past it now
    } else if (m.type === "state") post({ type: "state", id, state: service!.stateAt(m.height) });
    else post({ type: "subtrees", id, list: service!.subtrees(m.pool, m.tip) });
  } catch (err) {
    post({ type: "error", id, message: err instanceof Error ? err.message : String(err) });
  }
  schedule();
});
