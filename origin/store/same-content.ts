import { readFile, stat } from "node:fs/promises";
import { type Body, bodyLength, bodyParts } from "./blob-store.ts";

/** True when the file exists with exactly these bytes (size checked first, so a miss is cheap). */
export async function sameFileContent(path: string, body: Body): Promise<boolean> {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile() || info.size !== bodyLength(body)) return false;
  const file = await readFile(path);
  let at = 0;
  for (const part of bodyParts(body)) {
    if (Buffer.compare(file.subarray(at, at + part.length), part) !== 0) return false;
    at += part.length;
  }
  return true;
}
