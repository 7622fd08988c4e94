import { LightedgeError, toConnectError } from "../../proto/errors.ts";
import { BlockRangeSchema, type CompactBlock } from "../../proto/index.ts";
import {
  filterCompactBlock,
  nullifiersOnly,
  type PoolSet,
  poolSetFromRequest,
  SHIELDED_POOLS,
  storedProjectionFor,
} from "../../proto/pools.ts";
import type { EdgeServices } from "../services.ts";
import { type OpenedOriginSegment, openOriginSegment } from "../tail/origin-segment.ts";
import { contentTypeOf, errorResponse, isFramed } from "../wire/end-stream.ts";
import type { WireProtocol } from "../wire/protocol.ts";
import { readRequestMessage } from "../wire/request.ts";
import { createResponseSink } from "../wire/sink.ts";
import { extentOf, heightOf, notServed } from "./extent.ts";
import { planRange, type Segment } from "./plan.ts";
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
): Promise<Response> {
  let opened: Map<number, OpenedOriginSegment> | undefined;
  try {
    if (!isFramed(protocol))
      throw new LightedgeError(
        "bad-request",
        "edge.range",
        "a server stream needs gRPC-web or Connect streaming",
      );
    const msg = await readRequestMessage(req, protocol, BlockRangeSchema);
    const start = heightOf(msg.start?.height, "start");
    const end = heightOf(msg.end?.height, "end");
    const source = sourceFor(rpc, poolSetFromRequest(msg.poolTypes));
    const extent = extentOf(await s.heads.head(network));
    const segments = planRange(start, end, extent);
    opened = await openOrigins(s, network, rpc, segments, msg.poolTypes, extent);
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
    };
    void streamSegments(job);
    return new Response(sink.readable, { status: 200, headers: { "content-type": contentTypeOf[protocol] } });
  } catch (err) {
    for (const o of opened?.values() ?? []) void o.rest.return(undefined);
    return errorResponse(protocol, toConnectError(rpc, err, s.log));
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
): Promise<Map<number, OpenedOriginSegment>> {
  const opened = new Map<number, OpenedOriginSegment>();
  const origin = s.origin(network);
  const wanted = segments.flatMap((seg, i) => (seg.kind === "origin" ? [[i, seg] as const] : []));
  if (wanted.length > 0 && origin === undefined)
    throw notServed(wanted[0]![1].from, wanted[0]![1].to, extent);
  const results = await Promise.allSettled(
    wanted.map(([, seg]) => openOriginSegment(origin!, rpc, seg.from, seg.to, poolTypes)),
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
