import type { connectNodeAdapter } from "@connectrpc/connect-node";
import { clampDeadlineHeaders } from "../deadline.ts";
import { detectFastCall } from "./detect.ts";
import type { FastResponse } from "./output.ts";
import { type FastDeps, serveFastCall } from "./serve-call.ts";

type NodeHandlerFn = ReturnType<typeof connectNodeAdapter>;

/**
 * Puts the stored-frame fast path in front of connect-node: binary, uncompressed block RPCs
 * (detect.ts) are answered here — stored frames written straight into the response, as the edge
 * does — and every other request goes to `fallback` untouched.
 */
export function withFastPath(deps: FastDeps, fallback: NodeHandlerFn): NodeHandlerFn {
  return (req, res) => {
    // Timers cannot take deadlines above 2^31−1 ms: clamp before either path reads them.
    clampDeadlineHeaders(req.headers);
    const call = detectFastCall(req);
    if (call === undefined) {
      fallback(req, res);
      return;
    }
    deps.observer?.fastPath?.(call.rpc, call.protocol);
    serveFastCall(deps, call, req, res as unknown as FastResponse).catch((err: unknown) => {
      // Only a failing write of the status itself lands here: the response cannot be finished.
      deps.log?.(call.rpc, err);
      res.destroy();
    });
  };
}
