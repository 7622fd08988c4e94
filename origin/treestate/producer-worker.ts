import { parentPort } from "node:worker_threads";
import { createProducerHost } from "./producer-host.ts";
import type { ToWorker } from "./producer-protocol.ts";

/** Tree-state worker entry (producer-thread.ts starts it): the hash tables are built here, once. */
const port = parentPort!;
const handle = createProducerHost((m) => port.postMessage(m));
port.on("message", (m: ToWorker) => handle(m));
