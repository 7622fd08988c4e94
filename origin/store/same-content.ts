import { open } from "node:fs/promises";
import { type Body, bodyLength } from "./blob-store.ts";
import { bodyChunks } from "./body-io.ts";

/**
 * True when the file exists with exactly these bytes (size checked first, so a miss is cheap),
 * compared a chunk at a time: an object may be hundreds of MB.
 */
export async function sameFileContent(path: string, body: Body): Promise<boolean> {
  const file = await open(path, "r").catch(() => null);
  if (file === null) return false;
  try {
    const info = await file.stat();
    if (!info.isFile() || info.size !== bodyLength(body)) return false;
    let at = 0;
    for await (const chunk of bodyChunks(body)) {
      const stored = new Uint8Array(chunk.length);
      const { bytesRead } = await file.read(stored, 0, chunk.length, at);
      if (bytesRead !== chunk.length || Buffer.compare(stored, chunk) !== 0) return false;
      at += chunk.length;
    }
    return true;
  } finally {
    await file.close();
  }
}
