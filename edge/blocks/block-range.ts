import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { LightedgeError, toConnectError } from "../../proto/errors.ts";
import { FRAME_HEADER_BYTES } from "../../proto/frame.ts";
import {
  BlockIDSchema,
  type BlockRange,
  BlockRangeSchema,
  ChainSpecSchema,
  type CompactBlock,
  CompactBlockSchema,
} from "../../proto/index.ts";
import { type RangeRpc, rangeSourceFor } from "../../proto/pools.ts";
import { ChainCheck } from "../../proto/range/chain-link.ts";
import { headEndsLevels } from "../../proto/range/index.ts";
import { beforeDeadline, type Deadline, orDeadline } from "../../proto/wire/deadline.ts";
import { checkBlockRange, MAX_SMALL_REQUEST_BYTES } from "../../proto/wire/limits.ts";
import { contentTypeOf, isFramed, type WireProtocol } from "../../proto/wire/protocol.ts";
import type { EdgeServices } from "../services.ts";
import type { OriginClient } from "../tail/origin-client.ts";
import { checkedOriginFrames, type OpenedOriginSegment, openOriginSegment } from "../tail/origin-segment.ts";
import { readRequestMessage } from "../wire/request.ts";
import { errorResponse } from "../wire/responses.ts";
import { createResponseSink } from "../wire/sink.ts";
import { withBundles } from "./bundle-segments.ts";
import { extentOf, notServed } from "./extent.ts";
import { readAheadNextBatch } from "./next-batch.ts";
import { clampToTip, planRange, type Segment, sealedRangesOf, spareCallsFor } from "./plan.ts";
import { bufferedFrames, checkSealedRun } from "./sealed-segment.ts";
import { type RangeStream, segmentPieces, sendSegments } from "./stream-segments.ts";

export type { RangeRpc };

/**
 * GetBlockRange / GetBlockRangeNullifiers in a binary protocol: metadata first (cached), origin
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
  try {
    if (!isFramed(protocol))
      throw new LightedgeError(
        "bad-request",
        rpc,
        `${rpc}: a server stream needs gRPC-web or Connect streaming`,
      );
    const range = await beforeDeadline(
      deadline.signal,
      readRequestMessage(req, protocol, BlockRangeSchema, rpc, MAX_SMALL_REQUEST_BYTES),
    );
    const stream = await planRangeStream(s, network, rpc, range, deadline, true);
    const sink = createResponseSink();
    void sendSegments(stream, sink, protocol, s.log);
    return new Response(sink.readable, { status: 200, headers: { "content-type": contentTypeOf[protocol] } });
  } catch (err) {
    deadline.dispose();
    return errorResponse(protocol, toConnectError(rpc, orDeadline(deadline.signal, err), s.log));
  }
}

/**
 * The same range as messages, for JSON clients through the router: the planned stream's frames,
 * decoded one by one (a decode per block is JSON's nature; binary clients never come here).
 */
export async function* rangeMessages(
  s: EdgeServices,
  network: string,
  rpc: RangeRpc,
  range: BlockRange,
  deadline: Deadline,
): AsyncGenerator<CompactBlock> {
  const stream = await planRangeStream(s, network, rpc, range, deadline);
  const check = new ChainCheck(stream.ascending);
  for await (const piece of segmentPieces(stream)) {
    if (piece.kind === "sealed") {
      checkSealedRun(check, piece.read, piece.from, piece.to);
      const runs = bufferedFrames(
        piece.read,
        piece.from,
        piece.to,
        stream.source,
        stream.bufferBytes,
        deadline.signal,
      );
      for await (const frames of runs)
        for (const frame of frames) yield fromBinary(CompactBlockSchema, frame.subarray(FRAME_HEADER_BYTES));
    } else {
      for await (const frame of checkedOriginFrames(piece.segment, check))
        yield fromBinary(CompactBlockSchema, frame.message);
    }
  }
}

/**
 * Plans a checked range: sealed segments from the head's extent, origin segments opened (so an
 * origin that is down or past its tip refuses the request before any byte is sent). `pipeWhole`
 * (stored bytes sent as they are): runs of ranges inside one of the head's bundles become one read. Past the tip,
 * what exists is streamed in sending order, then OutOfRange (lightwalletd common/common.go
 * GetBlockRange stops at the first height it cannot get): without an origin the sealed tip is
 * the tip; with one, the origin's OutOfRange says so and its tip is asked.
 */
async function planRangeStream(
  s: EdgeServices,
  network: string,
  rpc: RangeRpc,
  range: BlockRange,
  deadline: Deadline,
  pipeWhole = false,
): Promise<RangeStream> {
  const signal = deadline.signal;
  let { start, end, pools } = checkBlockRange(rpc, range);
  const source = rangeSourceFor(rpc, pools);
  const head = await beforeDeadline(signal, s.heads.head(network));
  const extent = extentOf(head);
  const origin = s.origin(network);
  let endError: unknown;
  if (origin === undefined && Math.max(start, end) > extent.tipHeight) {
    endError = notServed(start, end, extent);
    const clamped = clampToTip(start, end, extent.tipHeight);
    if (clamped === undefined) throw endError;
    ({ start, end } = clamped);
  }
  const open = (segs: Segment[]) =>
    beforeDeadline(signal, openOrigins(s, network, rpc, segs, range.poolTypes, extent, deadline));
  const ranges = s.ranges(network, extent.rangeSize);
  const endsLevels = head === null ? [] : headEndsLevels(head);
  const bundles = pipeWhole && start <= end && source.project === undefined ? head?.bundles : undefined;
  const hotFrom = s.hotFrom(network, extent.rangeSize);
  // Bundled before origin segments are opened: those are kept by their segment's position.
  const plan = async (a: number, b: number) => {
    const planned = planRange(a, b, extent, s.config.maxRangesPerRequest);
    if (bundles === undefined) return planned;
    const firstIndex = extent.firstHeight / extent.rangeSize;
    return beforeDeadline(
      signal,
      withBundles(planned, ranges, source.projection, bundles, firstIndex, endsLevels, hotFrom),
    );
  };
  let segments = await plan(start, end);
  let opened: Map<number, OpenedOriginSegment>;
  try {
    opened = await open(segments);
  } catch (err) {
    if (origin === undefined || !isOutOfRange(err)) throw err;
    const tip = await beforeDeadline(signal, originTip(origin, signal, deadline.remainingMs()));
    const clamped = tip === undefined ? undefined : clampToTip(start, end, tip);
    if (clamped === undefined || Math.max(clamped.start, clamped.end) === Math.max(start, end)) throw err;
    endError = err;
    segments = await plan(clamped.start, clamped.end);
    opened = await open(segments);
  }
  // One batch of a sequential download: what the wallet asks next (its tree state, the next batch's
  // end-range metadata) is read while this one streams (next-batch.ts). Not beside an origin
  // stream: the reads ahead hold a connection of their own.
  if (pipeWhole && segments.every((seg) => seg.kind === "sealed"))
    readAheadNextBatch(s, network, start, end, extent);
  return {
    rpc,
    segments,
    opened,
    source,
    ranges,
    ascending: start <= end,
    endsLevels,
    bundles,
    hotFrom,
    deadline,
    bufferBytes: s.config.maxBufferedBytes,
    spanReads: {
      maxBytes: s.config.spanReadBytes,
      spareCalls: spareCallsFor(s.config.subrequestBudget, sealedRangesOf(segments, extent.rangeSize)),
    },
    endError,
  };
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
