import { rmSync } from "node:fs";
import { startEdgeRuntime } from "../edge-runtimes.ts";
import { memoryStateDir } from "./edge-fixture.ts";

/** The relay worker running: its URL, the pids whose CPU counts (Miniflare host + workerd). */
export interface RelayFixture {
  url: string;
  pids(): number[];
  stop(): Promise<void>;
}

/**
 * The Worker's floor (bench/relay-worker): Miniflare — the same runtime and settings as the edge's
 * Worker-alone runs — relaying each request's query to `targetUrl` (the static baseline), one
 * subrequest each. What any Worker that reads stored bytes over HTTP pays in this harness.
 */
export async function startRelayFixture(targetUrl: string, tmp: string): Promise<RelayFixture> {
  const state = memoryStateDir(tmp, "relay");
  const dir = new URL("../relay-worker/", import.meta.url).pathname;
  const rt = await startEdgeRuntime(`miniflare=${dir}`, state, { vars: { RELAY_TARGET: targetUrl } });
  return {
    url: rt.url,
    pids: () => rt.pids(),
    async stop() {
      await rt.stop();
      rmSync(state, { recursive: true, force: true });
    },
  };
}
