import { createReadStream } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { createContentEtags, type FileTag } from "./content-etag.ts";
import { assertSafeKey } from "./key-path.ts";

/** A single byte range of an object, or why none applies. */
export type RangeAnswer = { start: number; end: number } | "whole" | "unsatisfiable";

/**
 * `Range` per RFC 9110 §14.1–14.2 for one object of `size` bytes: `bytes=a-b`, `bytes=a-`,
 * `bytes=-n`. Another unit, or a header that is not one byte range, is ignored (the whole object);
 * a range whose start is past the end or after its last byte cannot be satisfied (416).
 */
export function parseRange(header: string | undefined, size: number): RangeAnswer {
  if (header === undefined) return "whole";
  const m = /^\s*bytes\s*=\s*(\d*)-(\d*)\s*$/i.exec(header);
  if (!m || (m[1] === "" && m[2] === "")) return "whole";
  if (m[1] === "") {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const last = m[2] === "" ? size - 1 : Number(m[2]);
  if (!Number.isSafeInteger(start) || start >= size || last < start) return "unsatisfiable";
  return { start, end: Math.min(last, size - 1) };
}

/**
 * The object key a request path names, or undefined when it names none: undecodable
 * percent-escapes, anything outside the store's key rules (key-path.ts: no "..", no dot files —
 * temp files stay private).
 */
export function keyOfPath(url: string | undefined): string | undefined {
  if (url === undefined || !url.startsWith("/")) return undefined;
  const raw = url.split("?", 1)[0]!.slice(1);
  let key: string;
  try {
    key = decodeURIComponent(raw);
  } catch {
    return undefined;
  }
  try {
    assertSafeKey(key);
  } catch {
    return undefined;
  }
  return key;
}

/**
 * The directory store over HTTP GET/HEAD with single byte ranges: what the edge's public-URL
 * reader needs (edge/store/http-object.ts). Hostile input is answered, never thrown: 400 for a
 * path that does not decode, 404 for anything that is not an object, 416 with
 * `Content-Range: bytes *\/size` for an unsatisfiable range, and a read error ends the response.
 */
export async function serveDirectoryOverHttp(dir: string, host = "127.0.0.1"): Promise<Server> {
  const tagOf = createContentEtags();
  const server = createServer((req, res) => {
    answer(dir, tagOf, req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve());
  });
  return server;
}

async function answer(
  dir: string,
  tagOf: (path: string) => Promise<FileTag | null>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD" }).end();
    return;
  }
  const key = keyOfPath(req.url);
  if (key === undefined) {
    res.writeHead(malformedEscape(req.url) ? 400 : 404).end();
    return;
  }
  const path = join(dir, ...key.split("/"));
  const tag = await tagOf(path);
  if (tag === null) {
    res.writeHead(404).end();
    return;
  }
  const range = parseRange(req.headers.range, tag.size);
  if (range === "unsatisfiable") {
    res.writeHead(416, { "content-range": `bytes */${tag.size}`, etag: tag.etag }).end();
    return;
  }
  const { start, end } = range === "whole" ? { start: 0, end: tag.size - 1 } : range;
  const headers: Record<string, string> = {
    "content-length": String(end - start + 1),
    "accept-ranges": "bytes",
    etag: tag.etag,
  };
  if (range !== "whole") headers["content-range"] = `bytes ${start}-${end}/${tag.size}`;
  res.writeHead(range === "whole" ? 200 : 206, headers);
  if (req.method === "HEAD" || end < start) {
    res.end();
    return;
  }
  const stream = createReadStream(path, { start, end });
  // A file removed or truncated mid-read: the length promised cannot be kept, so end the response.
  stream.once("error", () => res.destroy());
  stream.pipe(res);
}

function malformedEscape(url: string | undefined): boolean {
  try {
    decodeURIComponent(url ?? "");
    return false;
  } catch {
    return true;
  }
}
