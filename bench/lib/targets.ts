import type { Fixtures } from "./fixtures.ts";
import type { LoadRequest } from "./load.ts";
import { randomWindows, rangeRequest, staticRangeRequest } from "./rpc-requests.ts";

/** A server under load: its URL, the pids whose CPU counts, and how it asks for a range. */
export interface Target {
  name: "edge" | "origin" | "static";
  baseUrl: string;
  pids: number[];
  countFrames: boolean;
  request(start: number, end: number): LoadRequest;
}

/** The edge, the origin and the static baseline serving the same sealed heights' bytes. */
export async function rangeTargets(fixtures: Fixtures): Promise<Target[]> {
  const scan = await fixtures.scan();
  const st = await fixtures.staticServer();
  const edge = await fixtures.edge();
  const origin = await fixtures.origin();
  return [
    {
      name: "static",
      baseUrl: st.server.url,
      pids: [st.server.pid],
      countFrames: false,
      request: (a, b) => staticRangeRequest(st.offsets, scan.firstHeight, a, b),
    },
    {
      name: "edge",
      baseUrl: edge.url,
      pids: await fixtures.edgeServerPids(),
      countFrames: true,
      request: rangeRequest,
    },
    {
      name: "origin",
      baseUrl: origin.url,
      pids: await fixtures.originServerPids(),
      countFrames: true,
      request: rangeRequest,
    },
  ];
}

/** Seeded windows of `size` sealed blocks (capped at the sealed chain) as each target's requests. */
export async function windowsFor(fixtures: Fixtures, seed: number, count: number, size: number) {
  const scan = await fixtures.scan();
  const sealed = scan.sealedTip - scan.firstHeight + 1;
  const capped = Math.min(size, sealed);
  return { capped, windows: randomWindows(seed, count, capped, scan.firstHeight, scan.sealedTip) };
}

/** "range10k" style names for block counts. */
export function sizeName(size: number): string {
  return size >= 1000 ? `${size / 1000}k` : String(size);
}
