import type { EdgeServices } from "../services.ts";
import type { ObjectReader } from "../store/index.ts";

/** Sealed range objects never change once written: browsers and CDNs may keep them for a year. */
export const IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable";

/** Keys served over plain HTTP: sealed range objects (immutable) and heads (short-lived). */
const SEALED_KEY = /^v1\/([a-z0-9-]{1,16})\/r\d+\/\d{8}\.(meta|shielded|full|nullifiers)\.bin$/;
const HEAD_KEY = /^v1\/([a-z0-9-]{1,16})\/head\.json$/;

/**
 * GET /v1/<network>/… — the stored objects as plain files for CDN-cached downloads. The Workers
 * Cache API sits in front of the store: a miss reads the whole object once and caches it; Range
 * and conditional requests are then answered by the cache (206 / 304) from the cached copy.
 */
export async function serveObject(s: EdgeServices, req: Request): Promise<Response> {
  const url = new URL(req.url);
  const key = decodeURIComponent(url.pathname.slice(1));
  const sealed = SEALED_KEY.exec(key);
  const head = HEAD_KEY.exec(key);
  const network = (sealed ?? head)?.[1];
  if (network === undefined || !s.config.networks.includes(network))
    return new Response("not found\n", { status: 404 });
  const cacheControl = sealed
    ? IMMUTABLE_CACHE_CONTROL
    : `public, max-age=${Math.max(1, Math.floor(s.config.headCacheMs / 1000))}`;
  const cache = typeof caches === "undefined" ? undefined : (caches as unknown as { default: Cache }).default;
  const cacheKey = new Request(`${url.origin}${url.pathname}`, { method: "GET" });
  if (cache !== undefined && sealed) {
    const hit = await cache.match(requestFor(cacheKey, req));
    if (hit !== undefined) return hit;
  }
  const object = await s.reader.get(key);
  if (object === null) return new Response("not found\n", { status: 404 });
  const headers = new Headers({
    "content-type": sealed ? "application/octet-stream" : "application/json",
    "content-length": String(object.size),
    etag: object.etag,
    "cache-control": cacheControl,
    "accept-ranges": "bytes",
  });
  if (cache !== undefined && sealed) {
    // Cache the whole object, then let the cache answer Range / If-None-Match from it.
    await cache.put(cacheKey, new Response(object.body, { headers }));
    const cached = await cache.match(requestFor(cacheKey, req));
    if (cached !== undefined) return cached;
    return directRead(s.reader, key, req, headers);
  }
  if (req.headers.get("range") !== null || req.headers.get("if-none-match") !== null) {
    await object.body.cancel();
    return directRead(s.reader, key, req, headers);
  }
  return new Response(object.body, { headers });
}

/** The cache lookup for a client request: same key, the client's Range and conditional headers. */
function requestFor(cacheKey: Request, req: Request): Request {
  const headers = new Headers();
  for (const h of ["range", "if-none-match", "if-modified-since", "if-match", "if-range"]) {
    const v = req.headers.get(h);
    if (v !== null) headers.set(h, v);
  }
  return new Request(cacheKey.url, { method: "GET", headers });
}

/** Without the cache: ETag match → 304, one `bytes=a-b` / `bytes=a-` / `bytes=-n` range → 206. */
async function directRead(reader: ObjectReader, key: string, req: Request, base: Headers): Promise<Response> {
  const etag = base.get("etag") ?? "";
  const inm = req.headers.get("if-none-match");
  if (inm !== null && (inm === "*" || inm.split(",").some((t) => t.trim().replace(/^W\//, "") === etag))) {
    return new Response(null, {
      status: 304,
      headers: { etag, "cache-control": base.get("cache-control") ?? "" },
    });
  }
  const size = Number(base.get("content-length"));
  const range = parseRange(req.headers.get("range"), size);
  if (range === "invalid") {
    return new Response(null, { status: 416, headers: { "content-range": `bytes */${size}` } });
  }
  const object = await reader.get(key, range ?? undefined);
  if (object === null) return new Response("not found\n", { status: 404 });
  if (range === null) return new Response(object.body, { headers: base });
  const headers = new Headers(base);
  headers.set("content-length", String(range.length));
  headers.set("content-range", `bytes ${range.offset}-${range.offset + range.length - 1}/${size}`);
  return new Response(object.body, { status: 206, headers });
}

export function parseRange(
  value: string | null,
  size: number,
): { offset: number; length: number } | null | "invalid" {
  if (value === null) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(value.trim());
  if (m === null || (m[1] === "" && m[2] === "")) return null;
  if (m[1] === "") {
    const n = Math.min(Number(m[2]), size);
    return n === 0 ? "invalid" : { offset: size - n, length: n };
  }
  const first = Number(m[1]);
  const last = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (first >= size || last < first) return "invalid";
  return { offset: first, length: last - first + 1 };
}
