import { type ChildProcess, spawn } from "node:child_process";
import {
  createReadStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type Command, UsageError } from "../command.ts";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));

const help = `lightedge edge --port P [--origin URL] [--store r2|dir:PATH] [--persist DIR] [--networks LIST]

Runs the edge worker locally under \`wrangler dev\` (workerd, offline).

  --port P          port to listen on (default 8787; 0 picks a free one)
  --origin URL      origin base URL for tail blocks and node-only RPCs (or network=url,...)
  --store SPEC      where sealed ranges live:
                      r2        the local R2 bucket in --persist (default)
                      dir:PATH  a directory store written by the origin: served read-only over a
                                local HTTP server as STORE_PUBLIC_URL, so the directory stays the
                                one source of truth (no copy into R2)
  --persist DIR     wrangler's local state directory (default .wrangler/state)
  --networks LIST   networks served, first is the default (default: wrangler.toml's NETWORKS)

The origin's shared secret is read from LIGHTEDGE_ORIGIN_SECRET.
`;

export interface EdgeDevOptions {
  port: number;
  origin?: string;
  store?: string;
  persist?: string;
  networks?: string;
  /** Shared secret for the origin (default: LIGHTEDGE_ORIGIN_SECRET). */
  originSecret?: string;
  /** Where wrangler's output goes (default: inherited). */
  quiet?: boolean;
}

export interface EdgeDev {
  url: string;
  /** wrangler's process (its CPU time is the bench's server CPU). */
  child: ChildProcess;
  stop(): Promise<void>;
}

/** Starts the edge under wrangler dev and resolves once it answers /healthz. */
export async function startEdgeDev(o: EdgeDevOptions): Promise<EdgeDev> {
  let dirServer: Server | undefined;
  const defaultConfig = join(repoRoot, "wrangler.toml");
  let config = defaultConfig;
  const vars: string[] = [];
  if (o.store !== undefined && o.store !== "r2") {
    if (!o.store.startsWith("dir:")) throw new UsageError(`bad --store ${o.store} (r2 or dir:PATH)`);
    const dir = resolve(o.store.slice(4));
    if (!existsSync(dir)) throw new UsageError(`--store ${o.store}: no such directory`);
    dirServer = await serveDirectory(dir);
    vars.push(`STORE_PUBLIC_URL:http://127.0.0.1:${(dirServer.address() as AddressInfo).port}/`);
    config = configWithoutR2(config);
  }
  if (o.origin) vars.push(`ORIGIN_URL:${o.origin}`);
  if (o.networks) vars.push(`NETWORKS:${o.networks}`);
  const secret = o.originSecret ?? process.env.LIGHTEDGE_ORIGIN_SECRET;
  if (secret) vars.push(`ORIGIN_SECRET:${secret}`);
  const port = o.port === 0 ? await freePort() : o.port;
  const args = [
    join(repoRoot, "node_modules/wrangler/bin/wrangler.js"),
    "dev",
    "-c",
    config,
    "--port",
    String(port),
  ];
  args.push(
    "--ip",
    "127.0.0.1",
    "--show-interactive-dev-session=false",
    "--log-level",
    o.quiet ? "error" : "info",
  );
  if (o.persist) args.push("--persist-to", o.persist);
  for (const v of vars) args.push("--var", v);
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    stdio: o.quiet ? "ignore" : "inherit",
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
    dirServer?.closeAllConnections();
    dirServer?.close();
    if (config !== defaultConfig) rmSync(dirname(config), { recursive: true, force: true });
  };
  await waitHealthy(url, child).catch(async (err) => {
    await stop();
    throw err;
  });
  return { url, child, stop };
}

export const command: Command = {
  summary: "run the edge worker locally under wrangler dev",
  help,
  async run(argv) {
    const { values } = parseArgs({
      args: argv,
      options: {
        port: { type: "string", default: "8787" },
        origin: { type: "string" },
        store: { type: "string" },
        persist: { type: "string" },
        networks: { type: "string" },
      },
    });
    const port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535)
      throw new UsageError(`bad --port ${values.port}`);
    const edge = await startEdgeDev({ ...values, port } as EdgeDevOptions);
    process.stdout.write(`edge listening on ${edge.url}\n`);
    const stop = () => void edge.stop();
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
    return await new Promise<number>((r) => edge.child.once("exit", (code) => r(code ?? 0)));
  },
};

/** The directory store over HTTP GET with single byte ranges: what the public-URL reader needs. */
async function serveDirectory(dir: string): Promise<Server> {
  const server = createServer((req, res) => {
    const path = resolve(dir, decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname.slice(1)));
    if (!path.startsWith(dir + sep) || !existsSync(path) || !statSync(path).isFile()) {
      res.writeHead(404).end();
      return;
    }
    const size = statSync(path).size;
    const m = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "");
    const start = m ? Number(m[1]) : 0;
    const end = m ? Math.min(m[2] ? Number(m[2]) : size - 1, size - 1) : size - 1;
    const headers: Record<string, string> = {
      "content-length": String(end - start + 1),
      etag: `"${size}-${statSync(path).mtimeMs}"`,
    };
    if (m) headers["content-range"] = `bytes ${start}-${end}/${size}`;
    res.writeHead(m ? 206 : 200, headers);
    if (req.method === "HEAD") res.end();
    else createReadStream(path, { start, end }).pipe(res);
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return server;
}

/** wrangler.toml minus the R2 binding, so the worker reads STORE_PUBLIC_URL instead. */
function configWithoutR2(path: string): string {
  const toml = readFileSync(path, "utf8")
    .replace(/\[\[r2_buckets\]\][^[]*/s, "")
    .replace(/^main = "(.*)"$/m, (_l, main: string) => `main = ${JSON.stringify(join(repoRoot, main))}`);
  const out = join(mkdtempSync(join(tmpdir(), "lightedge-edge-")), "wrangler.toml");
  writeFileSync(out, toml);
  return out;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

async function waitHealthy(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error("wrangler dev did not become healthy within 60 s");
}
