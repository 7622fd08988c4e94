import { create, toBinary } from "@bufbuild/protobuf";
import { LightedgeError } from "../../proto/errors.ts";
import { BlockIDSchema, BlockRangeSchema, type PoolType } from "../../proto/index.ts";
import type { ChainCheck } from "../blocks/chain-check.ts";
import { readBlockIdentity } from "../wire/block-identity.ts";
import type { ReadFrame } from "../wire/frame-reader.ts";
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

/** Sends an opened origin segment's frames unchanged, checking every height and prevHash link. */
export async function writeOriginSegment(
  sink: ResponseSink,
  seg: OpenedOriginSegment,
  check: ChainCheck,
): Promise<void> {
  const step = seg.to >= seg.from ? 1 : -1;
  let expected = seg.from;
  const send = async (frame: ReadFrame) => {
    const id = readBlockIdentity(frame.message);
    if (id.height !== expected || expected === seg.to + step) {
      throw new LightedgeError(
        "chain-break",
        "edge.origin",
        `the origin sent block ${id.height} where ${expected} was due; retry`,
      );
    }
    check.run(id, id);
    await sink.write(frame.bytes);
    expected += step;
  };
  await send(seg.first);
  for await (const frame of seg.rest) await send(frame);
  if (expected !== seg.to + step) {
    throw new LightedgeError(
      "unavailable",
      "edge.origin",
      `the origin's stream stopped before block ${expected}; retry`,
    );
  }
}
