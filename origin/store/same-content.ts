import { readFile, stat } from "node:fs/promises";

/** True when the file exists with exactly these bytes (size checked first, so a miss is cheap). */
export async function sameFileContent(path: string, bytes: Uint8Array): Promise<boolean> {
  const info = await stat(path).catch(() => null);
  if (!info?.isFile() || info.size !== bytes.length) return false;
  return Buffer.compare(await readFile(path), bytes) === 0;
}
