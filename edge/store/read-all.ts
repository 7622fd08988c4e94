import type { ReadObject } from "../../proto/range/index.ts";
import type { ObjectReader } from "./object-reader.ts";

/** Bytes of a whole native body (small objects only: heads, metadata, one range's span). */
export async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(body).arrayBuffer());
}

/** A stored object's bytes: those the reader already holds, else its body drained. */
export function objectBytes(object: {
  body: ReadableStream<Uint8Array>;
  bytes?: Uint8Array;
}): Promise<Uint8Array> {
  return object.bytes !== undefined ? Promise.resolve(object.bytes) : readAll(object.body);
}

/** An object's bytes through a reader, whole or one span, or null (the index lookups' `ReadObject`). */
export function readObjectBytes(reader: ObjectReader): ReadObject {
  return async (key, span) => {
    const object = await reader.get(key, span);
    return object === null ? null : objectBytes(object);
  };
}
