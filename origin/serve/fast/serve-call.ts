import { Code, ConnectError } from "@connectrpc/connect";
import { toConnectError } from "../../../proto/errors.ts";
import { FRAME_HEADER_BYTES } from "../../../proto/frame.ts";
import type { RpcErrorLog as ErrorLog } from "../../../proto/wire/error-interceptor.ts";
import { maxRequestBytes } from "../../../proto/wire/limits.ts";
import {
  clampTimerMs,
  deadlineExceeded,
  parseTimeoutMs,
  timeoutHeaderOf,
} from "../../../proto/wire/protocol.ts";
import { readCapped, unwrapEnvelope } from "../../../proto/wire/request.ts";
import type { ChainView } from "../../index/chain-view.ts";
import type { BufferPool } from "../../store/index.ts";
import type { RpcObserver } from "../serve-metrics.ts";
import {
  type FastBlockRpc,
  type FastCall,
  type FastRequestHead,
  isRangeRpc,
  nodeRequestHead,
} from "./detect.ts";
import { endFramed, sendConnectUnary, startFramed } from "./envelope.ts";
import { createFrameOutput, type FastResponse } from "./output.ts";
import { rangeFrames, singleFrame } from "./sources.ts";

/** What the fast path reads and reports to (the service's chain, pushback, log and metrics). */
export interface FastDeps {
  chain: ChainView;
  pushbackMs: number;
  log?: ErrorLog;
  observer?: RpcObserver;
  /** Buffers sealed runs are read into and given back once written (origin/store/buffer-pool.ts). */
  pool?: BufferPool;
}

/**
 * One fast-path call: reads and checks the request, streams stored frames with backpressure,
 * and ends with the protocol's status. Every error goes through `toConnectError`, the one mapping;
 * a deadline (grpc-timeout / connect-timeout-ms) ends the stream with DeadlineExceeded; a client
 * that goes away aborts the ChainView iterator and nothing more is written.
 */
export async function serveFastCall(
  deps: FastDeps,
  call: FastCall,
  req: AsyncIterable<Uint8Array> & FastRequestHead,
  res: FastResponse,
): Promise<void> {
  const started = performance.now();
  // Framed protocols answer 200 with the status at the end, errors before any frame included.
  if (call.protocol !== "connect-unary") startFramed(res, call.protocol);
  const life = createCallLifetime(call.rpc, res);
  let failed: ConnectError | undefined;
  let answered = false;
  try {
    const timeout = nodeRequestHead(req).header(timeoutHeaderOf(call.protocol));
    life.expireAfter(parseTimeoutMs(call.protocol, timeout));
    const body = await readCapped(req, maxRequestBytes(call.rpc) + FRAME_HEADER_BYTES, call.rpc);
    answered = await answer(deps, call, body, res, life.signal);
  } catch (err) {
    // A client that went away is no server error (nothing to log; the read or write failed for it).
    failed = clientGone(life.signal)
      ? (life.signal.reason as ConnectError)
      : toConnectError(call.rpc, err, { pushbackMs: deps.pushbackMs, log: (e) => deps.log?.(call.rpc, e) });
  } finally {
    life.dispose();
    if (!answered && !clientGone(life.signal)) {
      if (call.protocol === "connect-unary") sendConnectUnary(res, failed!);
      else endFramed(res, call.protocol, failed);
    }
    const code = failed === undefined ? "ok" : Code[failed.code].toLowerCase();
    deps.observer?.observe(call.rpc, code, (performance.now() - started) / 1000);
  }
}

/** The call's signal: aborted when the client goes away (Canceled) or the deadline passes. */
function createCallLifetime(rpc: string, res: FastResponse) {
  const controller = new AbortController();
  const onClose = () => controller.abort(new ConnectError(`${rpc}: client went away`, Code.Canceled));
  res.once("close", onClose);
  let timer: NodeJS.Timeout | undefined;
  return {
    signal: controller.signal,
    expireAfter(ms: number | undefined) {
      if (ms === undefined) return;
      timer = setTimeout(() => controller.abort(deadlineExceeded(rpc)), clampTimerMs(ms));
    },
    /** Before the response ends: its own 'close' then is no client going away. */
    dispose() {
      clearTimeout(timer);
      res.off("close", onClose);
    },
  };
}

/** Answers a read request; true when the whole response is sent (Connect unary success). */
async function answer(
  deps: FastDeps,
  call: FastCall,
  body: Uint8Array,
  res: FastResponse,
  signal: AbortSignal,
): Promise<boolean> {
  if (call.protocol !== "connect-unary") {
    const kind = isRangeRpc(call.rpc) ? "server-streaming" : "unary";
    await streamFrames(deps, call, unwrapEnvelope(body, kind), res, signal);
    return false;
  }
  const frame = await singleFrame(deps.chain, call.rpc as FastBlockRpc, body, signal);
  signal.throwIfAborted();
  sendConnectUnary(res, frame.subarray(FRAME_HEADER_BYTES));
  return true;
}

const clientGone = (signal: AbortSignal) =>
  signal.reason instanceof ConnectError && signal.reason.code === Code.Canceled;

async function streamFrames(
  deps: FastDeps,
  call: FastCall,
  message: Uint8Array,
  res: FastResponse,
  signal: AbortSignal,
): Promise<void> {
  const out = createFrameOutput(res, signal, deps.pool);
  try {
    if (isRangeRpc(call.rpc)) {
      for await (const frame of rangeFrames(deps.chain, call.rpc, message, signal, deps.pool)) {
        const wait = out.push(frame);
        if (wait !== undefined) await wait;
        if (signal.aborted) break;
      }
    } else {
      out.push(await singleFrame(deps.chain, call.rpc, message, signal));
    }
  } finally {
    // The blocks before an error are sent before its status, as connect-node sends them.
    await out.flush();
  }
  // The ChainView ends quietly when the signal fires: a deadline must not look like success.
  signal.throwIfAborted();
}
