import { open } from "node:fs/promises";
import { LightedgeError } from "../../proto/errors.ts";
import { type Body, bodyParts, bodySlice, isFileBody } from "./blob-store.ts";

/** Bytes read from a file body at a time when it is compared or streamed. */
const FILE_CHUNK_BYTES = 1 << 20;

/**
 * Bytes `from..to` (exclusive) of a body as one buffer: `bodySlice` for a body in memory, a read
 * of just those bytes for a file (a multipart upload's part, a small object's single PUT).
 */
export async function readBodyRange(body: Body, from: number, to: number): Promise<Uint8Array> {
  if (!isFileBody(body)) return bodySlice(body, from, to);
  const file = await open(body.file, "r");
  try {
    const out = new Uint8Array(Math.max(0, to - from));
    let done = 0;
    while (done < out.length) {
      const { bytesRead } = await file.read(out, done, out.length - done, from + done);
      if (bytesRead === 0)
        throw new LightedgeError("internal", "store.body", `${body.file} ends before byte ${from + done}`);
      done += bytesRead;
    }
    return out;
  } finally {
    await file.close();
  }
}

/** A body's bytes in order: its parts as they are, a file's in chunks of 1 MiB. */
export async function* bodyChunks(body: Body): AsyncGenerator<Uint8Array> {
  if (!isFileBody(body)) {
    yield* bodyParts(body);
    return;
  }
  for (let at = 0; at < body.length; at += FILE_CHUNK_BYTES)
    yield await readBodyRange(body, at, Math.min(body.length, at + FILE_CHUNK_BYTES));
}
