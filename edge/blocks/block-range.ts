import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { LightedgeError, toConnectError } from "../../proto/errors.ts";
import { BlockIDSchema, BlockRangeSchema, ChainSpecSchema, type CompactBlock } from "../../proto/index.ts";
import {
  filterCompactBlock,
  nullifiersOnly,
  type PoolSet,
  poolSetFromRequest,
  SHIELDED_POOLS,
  storedProjectionFor,
} from "../../proto/pools.ts";
import { beforeDeadline, type Deadline, orDeadline } from "../rpc/deadline.ts";
import type { EdgeServices } from "../services.ts";
import type { OriginClient } from "../tail/origin-client.ts";
import { type OpenedOriginSegment, openOriginSegment } from "../tail/origin-segment.ts";
import { contentTypeOf, errorResponse, isFramed } from "../wire/end-stream.ts";
import type { WireProtocol } from "../wire/protocol.ts";
import { readRequestMessage } from "../wire/request.ts";
import { createResponseSink } from "../wire/sink.ts";
import { extentOf, heightOf, notServed } from "./extent.ts";
import { clampToTip, planRange, type Segment } from "./plan.ts";
import type { SegmentSource } from "./sealed-segment.ts";
import { streamSegments } from "./stream-segments.ts";

export type RangeRpc = "GetBlockRange" | "GetBlockRangeNullifiers";

/**
 * GetBlockRange / GetBlockRangeNullifiers on the fast path: metadata first (cached), origin
 * segments opened before anything is sent, then stored frames piped natively and the protocol's
 * end-of-stream bytes written last.
 */
export async function serveBlockRange(
  s: EdgeServices,
  network: string,
  rpc: RangeRpc,
  req: Request,
  protocol: WireProtocol,
  deadline: Deadline,
): Promise<Response> {
  let opened: Map<number, OpenedOriginSegment> | undefined;
  const signal = deadline.signal;
  try {
    if (!isFramed(protocol))
      throw new LightedgeError(
        "bad-request",
        "edge.range",
        "a server stream needs gRPC-web or Connect streaming",
      );
    const msg = await beforeDeadline(signal, readRequestMessage(req, protocol, BlockRangeSchema));
    let start = heightOf(msg.start?.height, "start");
    let end = heightOf(msg.end?.height, "end");
    const source = sourceFor(rpc, poolSetFromRequest(msg.poolTypes));
    const extent = extentOf(await beforeDeadline(signal, s.heads.head(network)));
    const origin = s.origin(network);
    // Past the tip, stream what exists in sending order, then OutOfRange (lightwalletd
    // common/common.go GetBlockRange stops at the first height it cannot get). Without an origin
    // the sealed tip is the tip; with one, the origin's OutOfRange says so and its tip is asked.
    let endError: unknown;
    if (origin === undefined && Math.max(start, end) > extent.tipHeight) {
      endError = notServed(start, end, extent);
      const clamped = clampToTip(start, end, extent.tipHeight);
      if (clamped === undefined) throw endError;
      ({ start, end } = clamped);
    }
    let segments = planRange(start, end, extent, s.config.maxRangesPerRequest);
    const open = (segs: Segment[]) =>
      beforeDeadline(signal, openOrigins(s, network, rpc, segs, msg.poolTypes, extent, deadline));
    try {
      opened = await open(segments);
    } catch (err) {
      if (origin === undefined || !isOutOfRange(err)) throw err;
      const tip = await beforeDeadline(signal, originTip(origin, signal, deadline.remainingMs()));
      const clamped = tip === undefined ? undefined : clampToTip(start, end, tip);
      if (clamped === undefined || Math.max(clamped.start, clamped.end) === Math.max(start, end)) throw err;
      endError = err;
      segments = planRange(clamped.start, clamped.end, extent, s.config.maxRangesPerRequest);
      opened = await open(segments);
    }
    const sink = createResponseSink();
    const ascending = start <= end;
    const job = {
      s,
      sink,
      segments,
      opened,
      source,
      protocol,
      rpc,
      ascending,
      network,
      rangeSize: extent.rangeSize,
      deadline,
      endError,
    };
    void streamSegments(job);
    return new Response(sink.readable, { status: 200, headers: { "content-type": contentTypeOf[protocol] } });
  } catch (err) {
    for (const o of opened?.values() ?? []) void o.rest.return(undefined);
    deadline.dispose();
    return errorResponse(protocol, toConnectError(rpc, orDeadline(signal, err), s.log));
  }
}

function isOutOfRange(err: unknown): boolean {
  return err instanceof ConnectError && err.code === Code.OutOfRange;
}

/** The origin's tip height, asked when it refused a range as past its tip; undefined if unknown. */
async function originTip(
  origin: OriginClient,
  signal: AbortSignal,
  timeoutMs: number | undefined,
): Promise<number | undefined> {
  try {
    const bytes = await origin.unary(
      "GetLatestBlock",
      toBinary(ChainSpecSchema, create(ChainSpecSchema)),
      signal,
      timeoutMs,
    );
    return Number(fromBinary(BlockIDSchema, bytes).height);
  } catch {
    return undefined;
  }
}

/** Which bytes a pool set is served from, and what it costs (see SegmentSource). */
export function sourceFor(rpc: RangeRpc, pools: PoolSet): SegmentSource {
  if (rpc === "GetBlockRangeNullifiers") {
    if (pools === SHIELDED_POOLS) return { kind: "stored", projection: "nullifiers" };
    return { kind: "projected", project: (b: CompactBlock) => nullifiersOnly(filterCompactBlock(b, pools)) };
  }
  const stored = storedProjectionFor(pools);
  if (stored !== null) return { kind: "stored", projection: stored };
  return { kind: "projected", project: (b: CompactBlock) => filterCompactBlock(b, pools) };
}

async function openOrigins(
  s: EdgeServices,
  network: string,
  rpc: RangeRpc,
  segments: Segment[],
  poolTypes: Parameters<typeof openOriginSegment>[4],
  extent: ReturnType<typeof extentOf>,
  deadline: Deadline,
): Promise<Map<number, OpenedOriginSegment>> {
  const opened = new Map<number, OpenedOriginSegment>();
  // A sealed range (the usual wallet request) opens nothing: no promise machinery per request.
  if (!segments.some((seg) => seg.kind === "origin")) return opened;
  const origin = s.origin(network);
  const wanted = segments.flatMap((seg, i) => (seg.kind === "origin" ? [[i, seg] as const] : []));
  if (wanted.length > 0 && origin === undefined)
    throw notServed(wanted[0]![1].from, wanted[0]![1].to, extent);
  const results = await Promise.allSettled(
    wanted.map(([, seg]) =>
      openOriginSegment(origin!, rpc, seg.from, seg.to, poolTypes, deadline.signal, deadline.remainingMs()),
    ),
  );
  results.forEach((r, k) => {
    if (r.status === "fulfilled") opened.set(wanted[k]![0], r.value);
  });
  const failed = results.find((r) => r.status === "rejected");
  if (failed !== undefined) {
    for (const o of opened.values()) void o.rest.return(undefined);
    throw (failed as PromiseRejectedResult).reason;
  }
  return opened;
}
