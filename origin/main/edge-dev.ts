import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { ConfigError } from "../config-error.ts";
import { serveDirectoryOverHttp } from "../store/http-server.ts";
import { freePort } from "./port-free.ts";
import { type ChildExit, createSupervisor } from "./supervise.ts";

/**
 * The edge worker run locally under `wrangler dev` (workerd, offline), supervised with the workerd
 * under it: what `lightedge edge` and `npm start` (start-all.ts) run.
 */

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

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
  /** Resolves if wrangler (or workerd under it) dies on its own; everything is stopped by then. */
  failed: Promise<ChildExit>;
  stop(): Promise<void>;
}

/** Networks whose head object a directory store holds (proto/range-format.md keys), mainnet first. */
export function networksInStore(dir: string): string[] {
  const v1 = join(dir, "v1");
  if (!existsSync(v1)) return [];
  const order = ["mainnet", "testnet", "regtest"];
  const rank = (n: string) => (order.includes(n) ? order.indexOf(n) : order.length);
  return readdirSync(v1)
    .filter((n) => existsSync(join(v1, n, "head.json")))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** Starts the edge under wrangler dev and resolves once it answers /healthz. */
export async function startEdgeDev(o: EdgeDevOptions): Promise<EdgeDev> {
  let dirServer: Server | undefined;
  let withR2 = true;
  const vars: string[] = [];
  if (o.store !== undefined && o.store !== "r2") {
    if (!o.store.startsWith("dir:")) throw new ConfigError(`bad --store ${o.store} (r2 or dir:PATH)`);
    const dir = resolve(o.store.slice(4));
    if (!existsSync(dir)) throw new ConfigError(`--store ${o.store}: no such directory`);
    if (!o.networks) {
      // Serve what the store holds: wrangler.toml's "mainnet" over a regtest store would send
      // every block request to the origin and read nothing from the store.
      const found = networksInStore(dir);
      if (found.length > 0) vars.push(`NETWORKS:${found.join(",")}`);
      else
        process.stderr.write(
          `lightedge edge: ${dir} holds no v1/<network>/head.json yet; serving wrangler.toml's NETWORKS (pass --networks)\n`,
        );
    }
    dirServer = await serveDirectoryOverHttp(dir);
    vars.push(`STORE_PUBLIC_URL:http://127.0.0.1:${(dirServer.address() as AddressInfo).port}/`);
    withR2 = false;
  }
  if (o.origin) vars.push(`ORIGIN_URL:${o.origin}`);
  if (o.networks) vars.push(`NETWORKS:${o.networks}`);
  const secret = o.originSecret ?? process.env.LIGHTEDGE_ORIGIN_SECRET;
  // The secret goes to wrangler in a .dev.vars file next to the config (mode 0600 in a 0700 temp
  // directory), never as `--var` on a command line anyone can read in /proc/PID/cmdline.
  const config = writeDevConfig(withR2, secret ? { ORIGIN_SECRET: secret } : {});
  let cleaned = false;
  const cleanUp = () => {
    if (cleaned) return;
    cleaned = true;
    dirServer?.closeAllConnections();
    dirServer?.close();
    rmSync(config.dir, { recursive: true, force: true });
  };
  for (let attempt = 1; ; attempt++) {
    try {
      return await spawnEdgeDev(config, o, vars, cleanUp);
    } catch (err) {
      // A port picked free can be taken before wrangler binds it (by another wrangler started at
      // the same moment, for one): start again on fresh ports. A port given by hand is not retried.
      if (!(err instanceof PortTakenError) || attempt === START_ATTEMPTS || o.port !== 0) {
        cleanUp();
        throw err;
      }
    }
  }
}

/** How many times a start whose freshly picked port was taken is tried. */
const START_ATTEMPTS = 3;

/** wrangler dev exited because a port it was to listen on was taken. */
class PortTakenError extends Error {}

async function spawnEdgeDev(
  config: { path: string },
  o: EdgeDevOptions,
  vars: readonly string[],
  cleanUp: () => void,
): Promise<EdgeDev> {
  const port = o.port === 0 ? await freePort() : o.port;
  // wrangler dev also opens a V8 inspector, on 9229 when that looks free: two wranglers started
  // together both see it free and the second dies binding it. Each gets a port of its own.
  const inspectorPort = await freePort();
  const args = edgeDevArgs(config, { port, inspectorPort }, o, vars);
  const supervisor = createSupervisor();
  const child = supervisor.spawn("wrangler", process.execPath, args, {
    cwd: repoRoot,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
  });
  // Piped rather than inherited, so a wrangler that dies while starting says why in the error.
  const output = keepTail(OUTPUT_TAIL_BYTES);
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    from?.on("data", (chunk: Buffer) => {
      output.add(chunk);
      if (!o.quiet) to.write(chunk);
    });
  }
  const url = `http://127.0.0.1:${port}`;
  let started = false;
  const failed = supervisor.failed.then(async (exit) => {
    await supervisor.stop();
    // While starting, the caller keeps the config and the store server for another attempt.
    if (started) cleanUp();
    return exit;
  });
  const stop = async () => {
    await supervisor.stop();
    cleanUp();
  };
  try {
    await waitHealthy(url, child, output);
  } catch (err) {
    await supervisor.stop();
    throw err;
  }
  started = true;
  return { url, child, failed, stop };
}

/** How much of wrangler's last output a failed start quotes. */
const OUTPUT_TAIL_BYTES = 4096;

/** The last `limit` bytes written to it. */
function keepTail(limit: number): { add(chunk: Buffer): void; text(): string } {
  let kept = Buffer.alloc(0);
  return {
    add(chunk) {
      kept = Buffer.concat([kept, chunk]);
      if (kept.length > limit) kept = kept.subarray(kept.length - limit);
    },
    // wrangler colours its errors even into a pipe.
    text: () => stripVTControlCharacters(kept.toString("utf8")).trim(),
  };
}

/** wrangler dev's arguments: no secret among them (see writeDevConfig). */
export function edgeDevArgs(
  config: { path: string },
  ports: { port: number; inspectorPort: number },
  o: Pick<EdgeDevOptions, "quiet" | "persist">,
  vars: readonly string[],
): string[] {
  const args = [join(repoRoot, "node_modules/wrangler/bin/wrangler.js"), "dev", "-c", config.path];
  args.push("--port", String(ports.port), "--ip", "127.0.0.1", "--show-interactive-dev-session=false");
  args.push("--inspector-port", String(ports.inspectorPort));
  args.push("--log-level", o.quiet ? "error" : "info");
  // The config lives in a temp directory: keep wrangler's state where it was (the repo), not there.
  args.push("--persist-to", o.persist ?? join(repoRoot, ".wrangler/state"));
  for (const v of vars) args.push("--var", v);
  return args;
}

/**
 * wrangler.toml copied into a fresh 0700 temp directory (its `main` made absolute), without the R2
 * binding when the store is a directory (the worker then reads STORE_PUBLIC_URL), and the given
 * secrets in a 0600 `.dev.vars` beside it, where wrangler dev reads them (its getVarsForDev).
 */
export function writeDevConfig(
  withR2: boolean,
  secrets: Record<string, string>,
): { dir: string; path: string } {
  let toml = readFileSync(join(repoRoot, "wrangler.toml"), "utf8").replace(
    /^main = "(.*)"$/m,
    (_l, main: string) => `main = ${JSON.stringify(join(repoRoot, main))}`,
  );
  if (!withR2) toml = toml.replace(/\[\[r2_buckets\]\][^[]*/s, "");
  const dir = mkdtempSync(join(tmpdir(), "lightedge-edge-"));
  const path = join(dir, "wrangler.toml");
  writeFileSync(path, toml);
  const lines = Object.entries(secrets).map(([name, value]) => {
    // dotenv single quotes take the value literally; a quote or newline could not round-trip.
    if (/['\r\n]/.test(value)) throw new ConfigError(`${name} must not contain quotes or newlines`);
    return `${name}='${value}'\n`;
  });
  writeFileSync(join(dir, ".dev.vars"), lines.join(""), { mode: 0o600 });
  return { dir, path };
}

async function waitHealthy(url: string, child: ChildProcess, output: { text(): string }): Promise<void> {
  const deadline = Date.now() + HEALTHY_WITHIN_MS;
  while (Date.now() < deadline) {
    const said = output.text();
    // wrangler reports a taken port and then keeps running, serving nothing: waiting on it would
    // only end at the deadline (or answer from whatever holds the port).
    if (/Address already in use/i.test(said))
      throw new PortTakenError(
        `wrangler dev could not listen: ${said.slice(said.search(/Address already in use/i))}`,
      );
    if (child.exitCode !== null)
      throw new Error(`wrangler dev exited with ${child.exitCode}${said ? `: ${said}` : ""}`);
    try {
      // Bounded: a port held by something that accepts and never answers must not outlast the deadline.
      const signal = AbortSignal.timeout(Math.max(1, Math.min(2000, deadline - Date.now())));
      if ((await fetch(`${url}/healthz`, { signal })).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`wrangler dev did not become healthy within ${HEALTHY_WITHIN_MS / 1000} s`);
}

const HEALTHY_WITHIN_MS = 60_000;
