import { LightedgeError } from "../../proto/errors.ts";
import { httpGet, httpHead } from "./http-object.ts";
import { keyPath, normalizePrefix } from "./key-prefix.ts";
import type { ObjectReader } from "./object-reader.ts";

/**
 * Reads from a public bucket or a CDN in front of one with plain fetch: no credentials in the
 * Worker, and the CDN may answer from its cache (the objects are immutable; the head is not, and
 * is sent with no-cache by the origin's stores).
 */
export function createPublicUrlReader(baseUrl: string, prefix?: string): ObjectReader {
  const base = `${baseUrl.replace(/\/+$/, "")}/`;
  const fullPrefix = normalizePrefix(prefix);
  const send = async (key: string, init: RequestInit): Promise<Response> => {
    try {
      return await fetch(`${base}${keyPath(fullPrefix + key)}`, init);
    } catch (cause) {
      throw new LightedgeError("unavailable", "edge.store", `object store: ${key}: unreachable`, { cause });
    }
  };
  return { get: (key, range) => httpGet(send, key, range), head: (key) => httpHead(send, key) };
}
