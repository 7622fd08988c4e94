import { parseArgs } from "node:util";
import type { Network } from "../config.ts";
import { ConfigError } from "../config-error.ts";
import type { StartAllOptions } from "./start-all.ts";

/**
 * `npm start` with no flags: a synthetic chain long enough that nine ranges seal, short enough that
 * start-up stays within seconds — the origin computes tree states for every synthetic block
 * (~16 ms of CPU each, Sapling Pedersen hashing), which dominates. Regtest allows a seal depth
 * below mainnet's 100 (origin/config.ts).
 */
export const DEV_DEFAULTS = { blocks: 1000, seed: "lightedge", rangeSize: 100, sealDepth: 10 } as const;

export interface StartArgs {
  options: StartAllOptions;
  /** What the banner says the data is: plainly synthetic, or the node indexed. */
  source: string;
}

const own = {
  "edge-port": { type: "string" },
  "origin-port": { type: "string" },
  "admin-port": { type: "string" },
  data: { type: "string" },
  blocks: { type: "string" },
  seed: { type: "string" },
  node: { type: "string" },
  network: { type: "string" },
  quiet: { type: "boolean" },
} as const;

/** Splits `npm start` flags from the `lightedge origin` flags passed through (auth, tuning). */
export function parseStartArgs(argv: string[], env: Record<string, string | undefined>): StartArgs {
  const { values: v, tokens } = parseArgs({ args: argv, options: own, strict: false, tokens: true });
  const rest = passThrough(argv, tokens);
  const port = (name: string, dflt: number) =>
    int(name, (v[name] as string | undefined) ?? String(dflt), 65535);
  const nodeUrl = (v.node as string | undefined) ?? (env.LIGHTEDGE_NODE_URL || undefined);
  const base = {
    dataDir: (v.data as string | undefined) ?? "./data",
    edgePort: port("edge-port", 8787),
    originPort: port("origin-port", 9067),
    adminPort: v["admin-port"] === "off" ? ("off" as const) : port("admin-port", 9464),
    quiet: v.quiet === true,
    // The origin's JSON logs stay quiet unless asked: the status page shows progress.
    originArgs: ["--log-level", "warn", ...rest],
  };
  if (nodeUrl !== undefined) {
    if (v.blocks !== undefined || v.seed !== undefined)
      throw new ConfigError("--blocks/--seed are for the dev chain, not --node");
    const network = parseNetwork((v.network as string | undefined) || env.LIGHTEDGE_NETWORK || "mainnet");
    return {
      options: { ...base, node: { url: nodeUrl, network } },
      source: `the node at ${nodeUrl} (${network})`,
    };
  }
  const blocks = Math.max(1, int("blocks", (v.blocks as string | undefined) ?? String(DEV_DEFAULTS.blocks)));
  const seed = (v.seed as string | undefined) ?? DEV_DEFAULTS.seed;
  return {
    options: {
      ...base,
      dataDir: `${base.dataDir}/synthetic`,
      dev: { node: { synthetic: { blocks, seed }, network: "regtest" } },
      rangeSize: DEV_DEFAULTS.rangeSize,
      sealDepth: DEV_DEFAULTS.sealDepth,
    },
    source: `a SYNTHETIC chain (not Zcash mainnet): ${blocks} blocks, seed "${seed}", network regtest`,
  };
}

function passThrough(argv: string[], tokens: ReturnType<typeof parseArgs>["tokens"] = []): string[] {
  const rest: string[] = [];
  const taken = new Set<number>();
  for (const t of tokens) {
    if (t.kind === "positional" && !taken.has(t.index))
      throw new ConfigError(`unexpected argument ${JSON.stringify(t.value)}`);
    if (t.kind !== "option" || t.name in own) continue;
    // strict:false reads an unknown `--flag value` as a boolean plus a positional: keep them together.
    const next = argv[t.index + 1];
    if (t.value !== undefined) rest.push(t.rawName, t.value);
    else if (next !== undefined && !next.startsWith("-") && !boolOriginFlags.has(t.name)) {
      rest.push(t.rawName, next);
      taken.add(t.index + 1);
    } else rest.push(t.rawName);
  }
  return rest;
}

const boolOriginFlags = new Set(["ping", "exit-when-synced"]);

function parseNetwork(text: string): Network {
  if (text === "mainnet" || text === "testnet" || text === "regtest") return text;
  throw new ConfigError(`--network must be mainnet, testnet or regtest (got ${JSON.stringify(text)})`);
}

function int(name: string, text: string, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > max) throw new ConfigError(`--${name} needs an integer from 0 to ${max}`);
  return n;
}
