import { timingSafeEqual } from "node:crypto";
import type { TrafficClass } from "./node-gate.ts";

/** Header the edge sets on every request it proxies to the origin. */
export const EDGE_SECRET_HEADER = "x-lightedge-secret";

/**
 * Classifies a request as edge or public traffic. No RPC is privileged: every method answers
 * without the secret (native-gRPC wallets call the origin directly). The secret only marks edge
 * traffic, which gets the whole node budget (see NodeGateOptions.publicShare). Any configured
 * secret is accepted, so a rotation deploys the new secret to the origin first, then the edge,
 * then drops the old one. A wrong secret is treated as public traffic (it grants nothing).
 */
export function createTrafficClassifier(secrets: readonly string[]): (headers: Headers) => TrafficClass {
  const keys = secrets.filter((s) => s.length > 0).map((s) => Buffer.from(s));
  return (headers) => {
    const given = headers.get(EDGE_SECRET_HEADER);
    if (given === null || keys.length === 0) return "public";
    const bytes = Buffer.from(given);
    // Compare against every key, equal-length only, so timing reveals neither match nor which key.
    let match = false;
    for (const key of keys) if (key.length === bytes.length && timingSafeEqual(key, bytes)) match = true;
    return match ? "edge" : "public";
  };
}
