import { readFileSync } from "node:fs";
import http from "node:http";
import { build } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { wranglerNames } from "../../infra/check/names.ts";
// wrangler's own Miniflare, so the workerd here is the one `wrangler dev` runs.
import {
  convertV4MiniflareOptions,
  Miniflare,
} from "../../node_modules/wrangler/node_modules/miniflare/dist/src/index.js";

/** wrangler.toml's compatibility settings: what a deployed edge runs with. */
const { compatibilityDate, compatibilityFlags } = wranglerNames(
  readFileSync(new URL("../../wrangler.toml", import.meta.url), "utf8"),
);

interface Held {
  held: number;
  waiting: number;
  capacity: number;
  hold: number;
}

/** The probe worker (edge/testing/cancel-probe-worker.ts) under workerd with these flags. */
async function startProbe(script: string, flags: string[]) {
  const mf = new Miniflare(
    convertV4MiniflareOptions({
      host: "127.0.0.1",
      port: 0,
      workers: [{ name: "probe", modules: true, script, compatibilityDate, compatibilityFlags: flags }],
    }),
  );
  const url = await mf.ready;
  const held = async () => (await (await fetch(new URL("/held", url))).json()) as Held;
  return { url, held, stop: () => mf.dispose() };
}

/**
 * A request over a real socket that stops reading once its answer starts (a stream that never
 * ends, or none yet while it waits); `goAway` closes its socket.
 */
function openRequest(url: URL): { goAway(): void } {
  const req = http.get(new URL("/hold", url), (res) => res.once("data", () => res.pause()));
  req.on("error", () => {});
  return { goAway: () => req.destroy() };
}

/** Polls the probe until `ok` holds of what it reports (5 s at most), then says what it reports. */
async function until(held: () => Promise<Held>, ok: (h: Held) => boolean): Promise<Held> {
  let now = await held();
  for (let i = 0; i < 100 && !ok(now); i++) {
    await new Promise((r) => setTimeout(r, 50));
    now = await held();
  }
  return now;
}

async function settledHeld(held: () => Promise<Held>): Promise<number> {
  let now = await held();
  for (let i = 0; i < 40 && now.held !== 0; i++) {
    await new Promise((r) => setTimeout(r, 50));
    now = await held();
  }
  return now.held;
}

/**
 * A client that goes away mid-answer: workerd cancels its request, and the request's pending work
 * never resumes — no `finally` of ours runs. The edge's isolate-wide allowances (buffered spans,
 * address records) are given back through Request.signal instead (edge/request-scope.ts), which
 * fires only under `enable_request_signal`. Run in workerd over real sockets: the in-isolate test
 * pool calls the worker as a function, where a cancelled call's code does resume.
 */
describe("what a request holds in the isolate, when its client goes away (workerd)", () => {
  let script: string;

  beforeAll(async () => {
    const out = await build({
      entryPoints: [new URL("../../edge/testing/cancel-probe-worker.ts", import.meta.url).pathname],
      bundle: true,
      format: "esm",
      platform: "neutral",
      external: ["node:*"],
      write: false,
    });
    script = out.outputFiles[0]!.text;
  });

  it("with wrangler.toml's flags, gives back the bytes of a request cancelled mid-answer, and of one whose client left while it waited", async () => {
    expect(compatibilityFlags).toContain("enable_request_signal");
    const probe = await startProbe(script, compatibilityFlags);
    try {
      const first = openRequest(probe.url);
      const holding = await until(probe.held, (h) => h.held > 0);
      expect(holding.held).toBe(holding.hold);
      // The second does not fit beside the first: it waits in the allowance's queue. workerd does
      // not tell a request still in its handler that its HTTP/1.1 client left (nothing is written
      // to notice it), so it stays queued until the first gives its bytes back; then it answers,
      // finds its client gone, and gives back what it was just given.
      const second = openRequest(probe.url);
      expect((await until(probe.held, (h) => h.waiting === 1)).waiting).toBe(1);
      second.goAway();
      first.goAway();
      expect(await settledHeld(probe.held)).toBe(0);
      expect((await probe.held()).waiting).toBe(0);
    } finally {
      await probe.stop();
    }
  }, 60_000);

  it("without enable_request_signal, the bytes of a cancelled request stay held for good (why the flag)", async () => {
    const probe = await startProbe(
      script,
      compatibilityFlags.filter((f) => f !== "enable_request_signal"),
    );
    try {
      const request = openRequest(probe.url);
      await until(probe.held, (h) => h.held > 0);
      request.goAway();
      const after = await settledHeld(probe.held);
      expect(after).toBe((await probe.held()).hold);
    } finally {
      await probe.stop();
    }
  }, 60_000);
});
