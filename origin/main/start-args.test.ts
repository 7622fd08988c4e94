import { describe, expect, it } from "vitest";
import { ConfigError } from "../config-error.ts";
import { exampleCall, renderBanner } from "./banner.ts";
import { DEV_DEFAULTS, parseStartArgs } from "./start-args.ts";

describe("npm start's arguments", () => {
  it("with nothing given, runs a synthetic regtest dev chain on the documented ports under ./data/synthetic", () => {
    const { options, source } = parseStartArgs([], {});
    expect(options.dev?.node.synthetic).toEqual({ blocks: DEV_DEFAULTS.blocks, seed: DEV_DEFAULTS.seed });
    expect(options.dev?.node.network).toBe("regtest");
    expect(options.node).toBeUndefined();
    expect([options.edgePort, options.originPort, options.adminPort]).toEqual([8787, 9067, 9464]);
    expect(options.dataDir).toBe("./data/synthetic");
    expect(options.sealDepth).toBeLessThan(options.rangeSize!);
    expect(source).toMatch(/^a SYNTHETIC chain \(not Zcash mainnet\): \d+ blocks/);
  });

  it("takes ports, data dir, chain length and seed from flags", () => {
    const { options } = parseStartArgs(
      [
        "--edge-port",
        "0",
        "--origin-port=1234",
        "--admin-port",
        "off",
        "--data",
        "/x",
        "--blocks",
        "50",
        "--seed",
        "s",
      ],
      {},
    );
    expect([options.edgePort, options.originPort, options.adminPort]).toEqual([0, 1234, "off"]);
    expect(options.dataDir).toBe("/x/synthetic");
    expect(options.dev?.node.synthetic).toEqual({ blocks: 50, seed: "s" });
  });

  it("indexes a real node from --node or LIGHTEDGE_NODE_URL, passing auth and other origin flags on", () => {
    const flag = parseStartArgs(
      ["--node", "http://n:8232", "--node-user", "u", "--node-password", "p", "--ping"],
      {},
    );
    expect(flag.options.node).toEqual({ url: "http://n:8232", network: "mainnet" });
    expect(flag.options.dev).toBeUndefined();
    expect(flag.options.dataDir).toBe("./data");
    expect(flag.options.originArgs).toEqual([
      "--log-level",
      "warn",
      "--node-user",
      "u",
      "--node-password",
      "p",
      "--ping",
    ]);
    expect(flag.source).toContain("http://n:8232 (mainnet)");
    const env = parseStartArgs(["--concurrency=4"], {
      LIGHTEDGE_NODE_URL: "http://z:1",
      LIGHTEDGE_NETWORK: "testnet",
    });
    expect(env.options.node).toEqual({ url: "http://z:1", network: "testnet" });
    expect(env.options.originArgs).toContain("--concurrency");
  });

  it("rejects bad ports, stray arguments and dev-chain flags with --node", () => {
    expect(() => parseStartArgs(["--edge-port", "70000"], {})).toThrow(ConfigError);
    expect(() => parseStartArgs(["--blocks", "many"], {})).toThrow(ConfigError);
    expect(() => parseStartArgs(["stray"], {})).toThrow(/unexpected argument "stray"/);
    expect(() => parseStartArgs(["--node", "http://n", "--seed", "x"], {})).toThrow(ConfigError);
    expect(() => parseStartArgs(["--node", "http://n", "--network", "moon"], {})).toThrow(ConfigError);
  });
});

describe("the start banner", () => {
  it("names every URL and gives a Connect JSON call against the edge", () => {
    const text = renderBanner({
      source: "a SYNTHETIC chain",
      edgeUrl: "http://127.0.0.1:8787",
      originUrl: "http://127.0.0.1:9067",
      adminUrl: "http://127.0.0.1:9464",
      devnodeUrl: "http://127.0.0.1:5000/",
      dataDir: "/d",
      tip: 999,
      sealedTip: 899,
      seconds: 3.25,
    });
    for (const s of ["http://127.0.0.1:8787", "http://127.0.0.1:9067", "http://127.0.0.1:9464/status"])
      expect(text).toContain(s);
    expect(text).toContain("tip 999, sealed to 899");
    expect(text).toContain(exampleCall("http://127.0.0.1:8787"));
    expect(exampleCall("http://e")).toBe(
      "curl -s -X POST -H 'content-type: application/json' -d '{}' http://e/cash.z.wallet.sdk.rpc.CompactTxStreamer/GetLatestBlock",
    );
  });
});
