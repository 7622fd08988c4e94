import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EdgeDev, startEdgeDev } from "./edge-dev.ts";

// wrangler dev started the way every test, bench and `npm start` starts it. CI once failed when
// two of them started at the same moment: both took wrangler's default inspector port, 9229.
describe("wrangler dev under startEdgeDev", () => {
  let dir: string;
  let held: Server;
  let heldPort: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "lightedge-edge-dev-"));
    // Accepts connections and never answers: what a port taken by something else looks like.
    held = createServer(() => {});
    await new Promise<void>((r) => held.listen(0, "127.0.0.1", r));
    heldPort = (held.address() as { port: number }).port;
  });

  afterAll(() => {
    held?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("starts several at once, each answering on its own port", async () => {
    const starts = await Promise.allSettled(
      [0, 1, 2, 3].map((i) =>
        startEdgeDev({ port: 0, quiet: true, persist: join(dir, `state-${i}`), networks: "regtest" }),
      ),
    );
    const edges = starts.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
    try {
      expect(starts.flatMap((s) => (s.status === "rejected" ? [String(s.reason)] : []))).toEqual([]);
      expect(new Set(edges.map((e: EdgeDev) => e.url)).size).toBe(4);
      for (const edge of edges) expect((await fetch(`${edge.url}/healthz`)).status).toBe(200);
    } finally {
      await Promise.all(edges.map((e) => e.stop()));
    }
  }, 90_000);

  it("fails at once, with wrangler's reason, on a port given by hand that is taken", async () => {
    const started = Date.now();
    const error = await startEdgeDev({
      port: heldPort,
      quiet: true,
      persist: join(dir, "state-held"),
      networks: "regtest",
    }).then(
      async (edge) => {
        await edge.stop();
        return undefined;
      },
      (err: unknown) => err,
    );
    expect(String(error)).toContain(`Address already in use (127.0.0.1:${heldPort})`);
    // Well before the 60 s a start may take: the taken port is read from wrangler's output.
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 90_000);
});
