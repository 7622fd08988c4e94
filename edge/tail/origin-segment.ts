import { create, toBinary } from "@bufbuild/protobuf";
import { LightedgeError } from "../../proto/errors.ts";
import { BlockIDSchema, BlockRangeSchema, type PoolType } from "../../proto/index.ts";
import type { ChainCheck } from "../../proto/range/chain-link.ts";
import { readBlockIdentity } from "../../proto/wire/block-identity.ts";
import type { ReadFrame } from "../../proto/wire/frames.ts";
import type { ResponseSink } from "../wire/sink.ts";
import type { OriginClient } from "./origin-client.ts";

/** Heights the store does not hold, streamed by the origin, opened before anything is sent. */
export interface OpenedOriginSegment {
  from: number;
  to: number;
  first: ReadFrame;
  rest: AsyncGenerator<ReadFrame>;
}

/**
 * Opens the origin's stream for `from..to` and waits for its first block: an origin that is down
 * or says OutOfRange refuses the whole request before any sealed byte is sent (as Zaino refuses a
 * range past its committed height whole, never cutting it short).
 */
export async function openOriginSegment(
  origin: OriginClient,
  rpc: string,
  from: number,
  to: number,
  poolTypes: PoolType[],
  signal?: AbortSignal,
  timeoutMs?: number,
): Promise<OpenedOriginSegment> {
  const request = create(BlockRangeSchema, {
    start: create(BlockIDSchema, { height: BigInt(from) }),
    end: create(BlockIDSchema, { height: BigInt(to) }),
    poolTypes,
  });
  const rest = await origin.stream(rpc, toBinary(BlockRangeSchema, request), signal, timeoutMs);
  const first = await rest.next();
  if (first.done) throw new LightedgeError("unavailable", "edge.origin", "the origin sent no blocks, retry");
  return { from, to, first: first.value, rest };
}

/** An opened origin segment's frames as they arrive, every height and prevHash link checked. */
export async function* checkedOriginFrames(
  seg: OpenedOriginSegment,
  check: ChainCheck,
): AsyncGenerator<ReadFrame> {
  const step = seg.to >= seg.from ? 1 : -1;
  let expected = seg.from;
  const admit = (frame: ReadFrame) => {
    const id = readBlockIdentity(frame.message, "origin sent a block");
    if (id.height !== expected || expected === seg.to + step) {
      throw new LightedgeError(
        "chain-break",
        "edge.origin",
        `the origin sent block ${id.height} where ${expected} was due; retry`,
      );
    }
    check.run(id);
    expected += step;
    return frame;
  };
  yield admit(seg.first);
  for await (const frame of seg.rest) yield admit(frame);
  if (expected !== seg.to + step) {
    throw new LightedgeError(
      "unavailable",
      "edge.origin",
      `the origin's stream stopped before block ${expected}; retry`,
    );
  }
}

/** Sends an opened origin segment's frames unchanged. */
export async function writeOriginSegment(
  sink: ResponseSink,
  seg: OpenedOriginSegment,
  check: ChainCheck,
): Promise<void> {
  for await (const frame of checkedOriginFrames(seg, check)) await sink.write(frame.bytes);
}
