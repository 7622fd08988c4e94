import { Registry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
import { createIndexMetrics } from "./index-metrics.ts";
import { type AdminServer, startAdminServer } from "./server.ts";

let server: AdminServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("the admin server", () => {
  it("serves the indexer's metrics in Prometheus text format", async () => {
    const registry = new Registry();
    const metrics = createIndexMetrics(registry);
    metrics.tipHeight.set(1234);
    metrics.uploadedBytes.inc(99);
    metrics.nodeErrors.inc({ kind: "unavailable" });
    server = await startAdminServer({ host: "127.0.0.1", port: 0, registry, health: {} });
    const res = await fetch(`${server.url}/metrics`);
    expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
    const text = await res.text();
    expect(text).toMatch(/^lightedge_index_tip_height 1234$/m);
    expect(text).toMatch(/^lightedge_index_uploaded_bytes_total 99$/m);
    expect(text).toMatch(/^lightedge_index_node_errors_total\{kind="unavailable"\} 1$/m);
  });

  it("answers /healthz 200 when every check is ok and 503 with the failing report otherwise", async () => {
    let ok = true;
    server = await startAdminServer({
      host: "127.0.0.1",
      port: 0,
      registry: new Registry(),
      health: {
        index: () => ({ ok, status: ok ? "following" : "alarm: deep reorg" }),
        store: () => ({ ok: true, status: "ok" }),
      },
    });
    const healthy = await fetch(`${server.url}/healthz`);
    expect(healthy.status).toBe(200);
    expect(await healthy.json()).toMatchObject({ ok: true, checks: { index: { status: "following" } } });
    ok = false;
    const sick = await fetch(`${server.url}/healthz`);
    expect(sick.status).toBe(503);
    expect(await sick.json()).toMatchObject({
      ok: false,
      checks: { index: { status: "alarm: deep reorg" }, store: { ok: true } },
    });
  });

  it("turns a throwing check into a failing report and unknown paths into 404", async () => {
    server = await startAdminServer({
      host: "127.0.0.1",
      port: 0,
      registry: new Registry(),
      health: {
        broken: () => {
          throw new Error("boom");
        },
      },
    });
    const res = await fetch(`${server.url}/healthz`);
    expect(res.status).toBe(503);
    expect(JSON.stringify(await res.json())).toMatch(/boom/);
    expect((await fetch(`${server.url}/nope`)).status).toBe(404);
  });

  it("serves its HTML pages by exact path and nothing for inherited names", async () => {
    let n = 0;
    server = await startAdminServer({
      host: "127.0.0.1",
      port: 0,
      registry: new Registry(),
      health: {},
      pages: { "/status": () => `<p>render ${++n}</p>` },
    });
    const res = await fetch(`${server.url}/status?x=1`);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await res.text()).toBe("<p>render 1</p>");
    expect(await (await fetch(`${server.url}/status`)).text()).toBe("<p>render 2</p>");
    expect((await fetch(`${server.url}/constructor`)).status).toBe(404);
  });
});
