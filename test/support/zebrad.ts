import { type ChildProcess, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { p2pkhScript, scriptAddress } from "../../origin/devnode/address.ts";
import { freePort } from "../../origin/main/port-free.ts";
import { createGate } from "../../proto/gate.ts";

/**
 * A real zebrad on Regtest for integration tests: `scripts/ensure-zebrad.sh` builds the pinned
 * zebrad once per machine and exports LIGHTEDGE_ZEBRAD. Without it the zebrad tests skip with
 * this message, except in CI (`CI` set), where a missing zebrad fails the run.
 */
export const zebradPath = process.env.LIGHTEDGE_ZEBRAD;

export const hasZebrad = zebradPath !== undefined && zebradPath !== "" && existsSync(zebradPath);

export const missingZebradMessage =
  `zebrad not found (LIGHTEDGE_ZEBRAD=${zebradPath ?? "unset"}): run \`source scripts/ensure-zebrad.sh\` ` +
  "to build zebrad 7.0.0 once per machine; the zebrad tests are skipped";

if (!hasZebrad) {
  if (process.env.CI) throw new Error(`CI requires zebrad: ${missingZebradMessage}`);
  console.warn(`\n*** ${missingZebradMessage} ***\n`);
}

/**
 * A Regtest P2PKH address (testnet prefix `tm`, protocol spec §5.6.1.1) lightedge derives for
 * itself: the key hash is SHA-256("lightedge-zebrad-miner")[0..20]. Nobody holds its key, so the
 * coinbase it receives is unspendable; a test that spends passes the wallet harness's address.
 */
export const DEFAULT_MINER_ADDRESS = scriptAddress(
  p2pkhScript(createHash("sha256").update("lightedge-zebrad-miner").digest().subarray(0, 20)),
  "regtest",
)!;

export interface ZebradOptions {
  /** `[mining] miner_address` (default DEFAULT_MINER_ADDRESS). */
  minerAddress?: string;
  /** NU5 activation height (default 1: every block from 1 on is NU5, v5 transactions allowed). */
  nu5Height?: number;
  /**
   * Later upgrades' activation heights, by zebrad's config names (`NU6`, `"NU6.1"`, …), written
   * after NU5 in `[network.testnet_parameters.activation_heights]`; none by default.
   */
  activationHeights?: Record<string, number>;
}

export interface Zebrad {
  /** JSON-RPC URL, e.g. http://127.0.0.1:PORT/ (no auth: cookie auth is off). */
  url: string;
  minerAddress: string;
  /** zebrad's process id (the bench reads its CPU time). */
  pid: number;
  /** The config file written (the README recipe's keys). */
  configToml: string;
  /** One JSON-RPC call; throws with zebrad's error message. */
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Mines `n` blocks with zebrad's `generate` RPC; resolves with their display hashes. */
  generate(n: number): Promise<string[]>;
  /** The best height. */
  height(): Promise<number>;
  /** SIGINT (zebrad shuts down cleanly, deleting its ephemeral state), then the temp folder. */
  stop(): Promise<void>;
}

/** The zebrad.toml this harness (and the README's Regtest recipe) uses. */
export function regtestConfig(o: {
  rpcPort: number;
  p2pPort: number;
  stateDir: string;
  minerAddress: string;
  nu5Height: number;
  activationHeights?: Record<string, number>;
}): string {
  const later = Object.entries(o.activationHeights ?? {})
    .map(([name, height]) => `${/^[A-Za-z0-9_]+$/.test(name) ? name : JSON.stringify(name)} = ${height}\n`)
    .join("");
  return `[network]
network = "Regtest"
listen_addr = "127.0.0.1:${o.p2pPort}"
initial_mainnet_peers = []
initial_testnet_peers = []
cache_dir = false

[network.testnet_parameters.activation_heights]
NU5 = ${o.nu5Height}
${later}
[mining]
miner_address = "${o.minerAddress}"

[state]
ephemeral = true
cache_dir = "${o.stateDir}"

[rpc]
listen_addr = "127.0.0.1:${o.rpcPort}"
enable_cookie_auth = false

[tracing]
use_color = false
`;
}

/** Starts zebrad on Regtest in a temp folder and waits until its RPC answers. */
export async function startZebrad(options: ZebradOptions = {}): Promise<Zebrad> {
  if (!hasZebrad) throw new Error(missingZebradMessage);
  const dir = mkdtempSync(join(tmpdir(), "lightedge-zebrad-"));
  const [rpcPort, p2pPort] = [await freePort(), await freePort()];
  const minerAddress = options.minerAddress ?? DEFAULT_MINER_ADDRESS;
  const configToml = regtestConfig({
    rpcPort,
    p2pPort,
    stateDir: join(dir, "state"),
    minerAddress,
    nu5Height: options.nu5Height ?? 1,
    activationHeights: options.activationHeights,
  });
  const configPath = join(dir, "zebrad.toml");
  writeFileSync(configPath, configToml);
  const logPath = join(dir, "zebrad.log");
  const log = createWriteStream(logPath);
  const child = spawn(zebradPath!, ["-c", configPath, "start"], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, RUST_BACKTRACE: "0" },
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${rpcPort}/`;
  let id = 0;
  // zebrad's RPC server refuses connections past its limit ("Too many connections…", not JSON)
  // (a CI run lost the wallet suite to a Promise.all of ~100 getrawtransaction calls): the
  // harness's own calls stay few at once, beside the origin's.
  const gate = createGate(RPC_IN_FLIGHT);
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    await gate.enter();
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
      });
      const text = await res.text();
      let body: { result?: T; error?: { code: number; message: string } };
      try {
        body = JSON.parse(text);
      } catch {
        throw new Error(`zebrad ${method}: HTTP ${res.status}, not JSON: ${text.slice(0, 80)}`);
      }
      if (body.error) throw new Error(`zebrad ${method}: ${body.error.message} (code ${body.error.code})`);
      return body.result as T;
    } finally {
      gate.leave();
    }
  };
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      log.end();
      if (child.exitCode === null && child.signalCode === null) {
        child.kill("SIGINT");
        const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    })();
    return stopping;
  };
  try {
    await waitForRpc(rpc, child, exited, logPath);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    url,
    minerAddress,
    pid: child.pid!,
    configToml,
    rpc,
    async generate(n) {
      return rpc<string[]>("generate", [n]);
    },
    height: () => rpc<number>("getblockcount"),
    stop,
  };
}

/**
 * Ready means zebrad has a chain tip, not merely an open RPC port: on Regtest it commits the
 * genesis block itself shortly after the port opens, and until then `getblockcount` fails ("No
 * blocks in state") and `generate` fails with "Zebra's state is empty, wait until it syncs to the
 * chain tip" (zebra-rpc's get_block_template reads the same latest chain tip). A CI run lost the
 * wallet suite to that window by waiting on `getblockchaininfo`, which answers before genesis.
 */
async function waitForRpc(
  rpc: (method: string) => Promise<unknown>,
  child: ChildProcess,
  exited: Promise<number | null>,
  logPath: string,
): Promise<void> {
  let done = false;
  exited.then(() => {
    done = true;
  });
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (done || child.exitCode !== null)
      throw new Error(`zebrad exited (${child.exitCode}) before its RPC answered:\n${tail(logPath)}`);
    const ok = await rpc("getblockcount").then(
      (height) => typeof height === "number" && height >= 0,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`zebrad had no chain tip (genesis) within 120 s:\n${tail(logPath)}`);
}

function tail(path: string): string {
  try {
    return readFileSync(path, "utf8").split("\n").slice(-30).join("\n");
  } catch {
    return "(no log)";
  }
}

/** The harness's JSON-RPC calls to zebrad at once, at most. */
const RPC_IN_FLIGHT = 8;
