import { env } from "cloudflare:test";
import { inject } from "vitest";
import { createApp } from "../app.ts";
import type { Env } from "../env.ts";

/** What test/support/edge-global-setup.ts provides (null without the real-chain corpus). */
export interface EdgeFixture {
  seed: {
    objects: Record<string, string>;
    blocks: Record<
      string,
      { height: number; hash: string; prevHash: string; full: string; shielded: string; nullifiers: string }[]
    >;
    tips: Record<string, number>;
  };
  originSecret: string;
  /**
   * The history fixture server (test/support/history-chains.ts): chains with node-free history and
   * real origins, built on first request (edge/history/testing.ts).
   */
  history: string;
  origins: {
    good: string;
    brokenAtSeam: string;
    brokenInTail: string;
    down: string;
    hung: string;
    /** Refuses every call (FailedPrecondition) naming the connect-timeout-ms it received. */
    echo: string;
    /** The good origin's answers cut after their headers and a stream's first frame, then held open. */
    stalling: string;
  };
}

declare module "vitest" {
  interface ProvidedContext {
    edgeFixture: EdgeFixture | null;
  }
}

export const fixture = inject("edgeFixture");

export function b64(s: string): Uint8Array {
  return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
}

/** Puts the seeded objects into the R2 binding (idempotent; storage may be per test file). */
export async function seedBucket(): Promise<void> {
  if (fixture === null) return;
  const bucket = (env as unknown as Env).BLOCKS!;
  await Promise.all(Object.entries(fixture.seed.objects).map(([key, value]) => bucket.put(key, b64(value))));
}

const app = createApp();

/** An env for the edge under test: the real R2 binding, two networks, and the chosen origin. */
export function testEnv(origin: keyof EdgeFixture["origins"] | "none", extra: Partial<Env> = {}): Env {
  return {
    ...(env as unknown as Env),
    NETWORKS: "mainnet,testnet",
    ORIGIN_URL: origin === "none" || fixture === null ? "" : fixture.origins[origin],
    ORIGIN_SECRET: fixture?.originSecret ?? "",
    ...extra,
  };
}

/** fetch into the app with a given env (connect-web wants redirect:"error", which we drop). */
export function fetchWith(e: Env): typeof fetch {
  return async (input, init) => {
    const req = new Request(input as RequestInfo, { ...init, redirect: "manual" } as RequestInit);
    return app.fetch(req, e, {
      waitUntil: () => {},
      passThroughOnException: () => {},
      props: {},
    } as unknown as ExecutionContext);
  };
}
