import { parentPort } from "node:worker_threads";
import { runSubtreeJob, type SubtreeJob } from "./subtree-job.ts";

/** Worker entry: { id, job } → { id, result } or { id, error }. Hash tables are built once per worker. */
parentPort?.on("message", (msg: { id: number; job: SubtreeJob }) => {
  try {
    parentPort!.postMessage({ id: msg.id, result: runSubtreeJob(msg.job) });
  } catch (err) {
    parentPort!.postMessage({ id: msg.id, error: String(err) });
  }
});
