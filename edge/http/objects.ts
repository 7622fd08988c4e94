import type { EdgeServices } from "../services.ts";
import { cacheUrlOf, putWithin } from "../store/cached-reader.ts";
import type { ObjectInfo, ObjectReader, StoredObject } from "../store/index.ts";
import { answerFor } from "./conditional.ts";

/** Sealed range objects never change once written: browsers and CDNs may keep them for a year. */
export const IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable";

/** Keys served over plain HTTP: sealed range objects (immutable) and heads (short-lived). */
const SEALED_KEY = /^v1\/([a-z0-9-]{1,16})\/r\d+\/\d{8}\.(meta|shielded|full|nullifiers)\.bin$/;
const HEAD_KEY = /^v1\/([a-z0-9-]{1,16})\/head\.json$/;

/**
 * GET /v1/<network>/… — the stored objects as plain files for CDN-cached downloads. The Workers
 * Cache API sits in front of the store: a miss reads the whole object once and caches it. The
 * conditional and Range headers are judged here (conditional.ts: RFC 9110 §13.2.2), never by the
 * cache, which ignores If-Match and If-Range: the cache only serves the whole object or one
 * normalized byte range.
 */
export async function serveObject(s: EdgeServices, req: Request): Promise<Response> {
  const url = new URL(req.url);
  let key: string;
  try {
    key = decodeURIComponent(url.pathname.slice(1));
  } catch {
    return new Response("bad request: malformed percent-encoding in the path\n", { status: 400 });
  }
  const sealed = SEALED_KEY.exec(key);
  const head = HEAD_KEY.exec(key);
  const network = (sealed ?? head)?.[1];
  if (network === undefined || !s.config.networks.includes(network))
    return new Response("not found\n", { status: 404 });
  const cacheControl = sealed
    ? IMMUTABLE_CACHE_CONTROL
    : `public, max-age=${Math.max(1, Math.floor(s.config.headCacheMs / 1000))}`;
  const cache = typeof caches === "undefined" ? undefined : (caches as unknown as { default: Cache }).default;
  const cacheKey = new Request(cacheUrlOf(key, s.cacheScope), { method: "GET" });
  if (cache !== undefined && sealed) {
    let whole = await cache.match(cacheKey);
    if (whole === undefined) {
      const object = await s.reader.get(key);
      if (object === null) return new Response("not found\n", { status: 404 });
      const response = new Response(object.body, { headers: headersOf(object, sealed, cacheControl) });
      if (await putWithin(cache, cacheKey, response, object.size)) whole = await cache.match(cacheKey);
    }
    if (whole !== undefined) return fromWhole(cache, cacheKey, whole, req);
  }
  const object = await s.reader.get(key);
  if (object === null) return new Response("not found\n", { status: 404 });
  return directRead(s.reader, key, object, req, headersOf(object, sealed !== null, cacheControl));
}

function headersOf(info: ObjectInfo, sealed: unknown, cacheControl: string): Headers {
  return new Headers({
    "content-type": sealed ? "application/octet-stream" : "application/json",
    "content-length": String(info.size),
    etag: info.etag,
    "cache-control": cacheControl,
    "accept-ranges": "bytes",
  });
}

/** Answers from the cached whole object: itself, a status without body, or one cached range. */
async function fromWhole(cache: Cache, cacheKey: Request, whole: Response, req: Request): Promise<Response> {
  const size = Number(whole.headers.get("content-length"));
  const answer = answerFor(req.headers, whole.headers.get("etag") ?? "", size);
  if (answer.status === 200) return whole;
  await whole.body?.cancel();
  if (answer.status !== 206) return statusOnly(answer.status, whole.headers, size);
  const last = answer.offset + answer.length - 1;
  const ranged = await cache.match(
    new Request(cacheKey.url, { headers: { range: `bytes=${answer.offset}-${last}` } }),
  );
  if (ranged !== undefined && ranged.status === 206) return ranged;
  await ranged?.body?.cancel();
  return new Response("range not available, retry\n", { status: 503 });
}

/** Without the cache: the same answers; a range is a second, ranged read from the store. */
async function directRead(
  reader: ObjectReader,
  key: string,
  whole: StoredObject,
  req: Request,
  base: Headers,
): Promise<Response> {
  const size = whole.size;
  const answer = answerFor(req.headers, whole.etag, size);
  if (answer.status === 200) return new Response(whole.body, { headers: base });
  await whole.body.cancel();
  if (answer.status !== 206) return statusOnly(answer.status, base, size);
  const range = { offset: answer.offset, length: answer.length };
  const object = await reader.get(key, range);
  if (object === null) return new Response("not found\n", { status: 404 });
  const headers = new Headers(base);
  headers.set("content-length", String(range.length));
  headers.set("content-range", `bytes ${range.offset}-${range.offset + range.length - 1}/${size}`);
  return new Response(object.body, { status: 206, headers });
}

/** 304 (with the validator and caching headers), 412, or 416 (with `Content-Range: bytes *\/size`). */
function statusOnly(status: 304 | 412 | 416, base: Headers, size: number): Response {
  const headers = new Headers({ etag: base.get("etag") ?? "" });
  if (status === 304) headers.set("cache-control", base.get("cache-control") ?? "");
  if (status === 416) headers.set("content-range", `bytes */${size}`);
  return new Response(null, { status, headers });
}
