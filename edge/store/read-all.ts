/** Bytes of a whole native body (small objects only: heads, metadata, one range's span). */
export async function readAll(body: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  return new Uint8Array(await new Response(body).arrayBuffer());
}
