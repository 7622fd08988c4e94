import { parentPort } from "node:worker_threads";
import { hasherFor } from "../trees/hashers.ts";
import { createProducerHost } from "./producer-host.ts";
import type { ToWorker } from "./producer-protocol.ts";

/** Tree-state worker entry (producer-thread.ts starts it): the hash tables are built here, once. */
const port = parentPort!;
const handle = createProducerHost((m) => port.postMessage(m));
port.on("message", (m: ToWorker) => handle(m));
// Build the tables (seconds: origin/trees/hashers.ts) as the thread starts, not when the first
// shielded output arrives: a tail lookup queued behind that build would outlast the edge's 1 s
// wait for the origin's answer (edge/tail/origin-client.ts) and the wallet would see Unavailable.
for (const family of ["sapling", "orchard"] as const) hasherFor(family).emptyRoot(0);
