import { LightedgeError } from "../../proto/errors.ts";
import type { ReadObject } from "../../proto/range/index.ts";
import { beforeDeadline, withinMs } from "../../proto/wire/deadline.ts";
import type { ObjectReader } from "./object-reader.ts";

/**
 * Longest a whole-body storage read of `length` bytes may take: 10 s for its first bytes, then at
 * least 1 MB/s (a 4 MiB run of a range's span: 14 s; R2 within a data center sends hundreds of MB/s).
 */
export function storageReadMs(length: number): number {
  return 10_000 + length / 1_000;
}

/**
 * Bytes of a whole native body from storage (a head, metadata, one block, one run of a range's
 * span; small objects and runs only), within storageReadMs(length) — else Unavailable: "`what`:
 * the store did not send its N bytes within S s" — and the caller's `signal`. A read that stalls
 * mid-body would otherwise hang its call until the client's deadline, and forever without one
 * (wallets mostly set none), holding whatever the call holds (a buffered span's share of the
 * isolate's allowance): workerd does not see a client leave a response nothing is written to.
 * The stalled body is left to the runtime, which closes a request's outstanding reads when it ends
 * (test/robustness/edge-stall.test.ts); cancelling it here would need a pipe, ≈ 100 µs a read.
 */
export async function readAll(
  body: ReadableStream<Uint8Array>,
  length: number,
  what: string,
  signal?: AbortSignal,
): Promise<Uint8Array> {
  const ms = storageReadMs(length);
  const bytes = withinMs(new Response(body).arrayBuffer(), ms, () => {
    throw new LightedgeError(
      "unavailable",
      "edge.store",
      `${what}: the store did not send its ${length} bytes within ${Math.round(ms / 1000)} s`,
    );
  });
  return new Uint8Array(await beforeDeadline(signal, bytes));
}

/** A stored object's bytes: those the reader already holds, else its body drained (readAll). */
export function objectBytes(
  object: { body: ReadableStream<Uint8Array>; bytes?: Uint8Array; size: number; range?: { length: number } },
  what: string,
): Promise<Uint8Array> {
  return object.bytes !== undefined
    ? Promise.resolve(object.bytes)
    : readAll(object.body, object.range?.length ?? object.size, what);
}

/** An object's bytes through a reader, whole or one span, or null (the index lookups' `ReadObject`). */
export function readObjectBytes(reader: ObjectReader): ReadObject {
  return async (key, span) => {
    const object = await reader.get(key, span);
    return object === null ? null : objectBytes(object, key);
  };
}
