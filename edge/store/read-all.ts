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
