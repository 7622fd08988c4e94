import { LightedgeError } from "../../proto/errors.ts";
import type { ByteRange, ObjectInfo, StoredObject } from "./object-reader.ts";

/**
 * Turns an HTTP response from an S3-compatible endpoint or a public bucket/CDN into the reader
 * port's shape. The body is handed on untouched (a native stream, edge-streaming.md). A server
 * that ignores Range would hand back the wrong bytes, so that is refused, never passed on.
 */
export async function toStoredObject(
  res: Response,
  what: string,
  range?: ByteRange,
): Promise<StoredObject | null> {
  if (res.status === 404) return discard(res, null);
  if (res.status === 206 && range) return partial(res, what, range);
  if (res.status === 200) {
    const size = contentLength(res, what);
    if (range && !(range.offset === 0 && range.length >= size)) {
      return reject(res, fail(what, "the server ignored the Range header"));
    }
    return {
      body: res.body ?? emptyStream(),
      size,
      etag: etagOf(res),
      ...(range ? { range: { offset: 0, length: size } } : {}),
    };
  }
  return reject(res, fail(what, `HTTP ${res.status}`));
}

export async function toObjectInfo(res: Response, what: string): Promise<ObjectInfo | null> {
  if (res.status === 404) return discard(res, null);
  if (res.status !== 200) return reject(res, fail(what, `HTTP ${res.status}`));
  return discard(res, { size: contentLength(res, what), etag: etagOf(res) });
}

/** Sends a request for `key` (signed or not); network failures are the caller's to map. */
export type Send = (key: string, init: RequestInit) => Promise<Response>;

/**
 * GET through `send`, as the port defines it. A zero-length range cannot be written as an HTTP
 * Range, and a range starting at the end gets 416 (without a size from some servers): both are
 * answered from a HEAD as "no bytes", like a clamped range.
 */
export async function httpGet(send: Send, key: string, range?: ByteRange): Promise<StoredObject | null> {
  if (range?.length === 0) return zeroLength(await httpHead(send, key), range.offset);
  const res = await send(key, { method: "GET", headers: range ? { range: rangeHeader(range) } : {} });
  if (res.status === 416 && range)
    return zeroLength(await discard(res, await httpHead(send, key)), range.offset);
  return toStoredObject(res, key, range);
}

export async function httpHead(send: Send, key: string): Promise<ObjectInfo | null> {
  return toObjectInfo(await send(key, { method: "HEAD" }), key);
}

/** No bytes at `offset` of an object (null when the object is absent). */
export function zeroLength(info: ObjectInfo | null, offset: number): StoredObject | null {
  return info === null ? null : { ...info, body: emptyStream(), range: { offset, length: 0 } };
}

export function rangeHeader(range: ByteRange): string {
  return `bytes=${range.offset}-${range.offset + range.length - 1}`;
}

function partial(res: Response, what: string, range: ByteRange): Promise<StoredObject> | StoredObject {
  const m = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(res.headers.get("content-range") ?? "");
  if (!m || Number(m[1]) !== range.offset) return reject(res, fail(what, "unexpected Content-Range"));
  const offset = Number(m[1]);
  const length = Number(m[2]) - offset + 1;
  return {
    body: res.body ?? emptyStream(),
    size: Number(m[3]),
    etag: etagOf(res),
    range: { offset, length },
  };
}

function contentLength(res: Response, what: string): number {
  const value = res.headers.get("content-length");
  if (value === null || !/^\d+$/.test(value)) throw fail(what, "no Content-Length");
  return Number(value);
}

function etagOf(res: Response): string {
  return res.headers.get("etag") ?? "";
}

export function emptyStream(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (c) => c.close() });
}

function fail(what: string, detail: string): LightedgeError {
  return new LightedgeError("unavailable", "edge.store", `object store: ${what}: ${detail}`);
}

/** Cancels a body we will not read (Workers allow only 6 open connections per request). */
async function discard<T>(res: Response, outcome: T): Promise<T> {
  await res.body?.cancel().catch(() => undefined);
  return outcome;
}

async function reject(res: Response, err: LightedgeError): Promise<never> {
  await discard(res, null);
  throw err;
}
