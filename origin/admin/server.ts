import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";
import type { HealthReport } from "../index/reporting.ts";

export interface AdminServerOptions {
  host: string;
  port: number;
  registry: Registry;
  /** Every check must be ok for a 200; their reports are merged under their names. */
  health: Record<string, () => HealthReport>;
  /** HTML pages by path (e.g. the status page at "/" and "/status"), rendered per request. */
  pages?: Record<string, () => string>;
}

export interface AdminServer {
  /** The bound address (port 0 resolves to the real port). */
  url: string;
  close(): Promise<void>;
}

/**
 * The admin listener (separate from the RPC port: issue 7): Prometheus `/metrics`, `/healthz` and
 * any HTML `pages` (the origin's status page).
 * Shared by `lightedge index` and `lightedge origin`.
 */
export async function startAdminServer(options: AdminServerOptions): Promise<AdminServer> {
  const server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { allow: "GET, HEAD" }).end();
    } else if (path === "/metrics") {
      options.registry.metrics().then(
        (text) => res.writeHead(200, { "content-type": options.registry.contentType }).end(text),
        (err: unknown) => res.writeHead(500).end(String(err)),
      );
    } else if (path === "/healthz") {
      const body = healthBody(options.health);
      res
        .writeHead(body.ok ? 200 : 503, { "content-type": "application/json" })
        .end(`${JSON.stringify(body)}\n`);
    } else if (path !== undefined && options.pages && Object.hasOwn(options.pages, path)) {
      const html = options.pages[path]!();
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
        .end(html);
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found: try /metrics or /healthz\n");
    }
  });
  await listen(server, options.host, options.port);
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(":") ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function healthBody(checks: AdminServerOptions["health"]): {
  ok: boolean;
  checks: Record<string, HealthReport>;
} {
  const reports: Record<string, HealthReport> = {};
  let ok = true;
  for (const [name, check] of Object.entries(checks)) {
    try {
      reports[name] = check();
    } catch (err) {
      reports[name] = {
        ok: false,
        status: `check failed: ${err instanceof Error ? err.message : String(err)}`,
      };
    }
    ok &&= reports[name].ok;
  }
  return { ok, checks: reports };
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
