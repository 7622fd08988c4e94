import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadOriginConfig, storeEnv } from "./config.ts";
import { ConfigError } from "./config-error.ts";

const base = ["--node", "http://127.0.0.1:8232", "--network", "regtest"];

describe("origin configuration", () => {
  it("reads flags into a frozen object with defaults", () => {
    const config = loadOriginConfig([...base, "--store", "dir:/tmp/x", "--range-size", "10"], {});
    expect(config.rangeSize).toBe(10);
    expect(config.sealDepth).toBe(100);
    expect(config.store).toBe("dir:/tmp/x");
    expect(config.admin).toEqual({ host: "127.0.0.1", port: 9464 });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.node)).toBe(true);
  });

  it("takes the environment when a flag is absent, and the flag when both are set", () => {
    const env = {
      LIGHTEDGE_NODE_URL: "http://node:1",
      LIGHTEDGE_NETWORK: "testnet",
      LIGHTEDGE_CONCURRENCY: "3",
      LIGHTEDGE_SECRETS: "a, b",
    };
    const config = loadOriginConfig(["--concurrency", "5"], env);
    expect(config.node.url).toBe("http://node:1");
    expect(config.network).toBe("testnet");
    expect(config.concurrency).toBe(5);
    expect(config.secrets).toEqual(["a", "b"]);
  });

  it("reads the sync's fetch budget in MiB (32 unless told), from the flag or the environment", () => {
    const env = { LIGHTEDGE_NODE_URL: "http://node:1", LIGHTEDGE_NETWORK: "testnet" };
    expect(loadOriginConfig([], env).fetchBudgetBytes).toBe(32 * 1024 * 1024);
    expect(loadOriginConfig(["--fetch-budget-mib", "8"], env).fetchBudgetBytes).toBe(8 * 1024 * 1024);
    expect(loadOriginConfig([], { ...env, LIGHTEDGE_FETCH_BUDGET_MIB: "64" }).fetchBudgetBytes).toBe(
      64 * 1024 * 1024,
    );
    expect(() => loadOriginConfig(["--fetch-budget-mib", "0"], env)).toThrow(/--fetch-budget-mib/);
  });

  it("reads how long superseded index levels are kept: minutes (60 unless told), or off", () => {
    const env = { LIGHTEDGE_NODE_URL: "http://node:1", LIGHTEDGE_NETWORK: "testnet" };
    expect(loadOriginConfig([], env).supersededGraceMs).toBe(60 * 60_000);
    expect(loadOriginConfig(["--superseded-grace-minutes", "5"], env).supersededGraceMs).toBe(5 * 60_000);
    expect(
      loadOriginConfig([], { ...env, LIGHTEDGE_SUPERSEDED_GRACE_MINUTES: "off" }).supersededGraceMs,
    ).toBeUndefined();
    expect(() => loadOriginConfig(["--superseded-grace-minutes", "0"], env)).toThrow(
      /--superseded-grace-minutes/,
    );
  });

  it("reads the ranges per bundle: 10 unless told, 2 … 1,000, or off", () => {
    const env = { LIGHTEDGE_NODE_URL: "http://node:1", LIGHTEDGE_NETWORK: "testnet" };
    expect(loadOriginConfig([], env).bundleRanges).toBe(10);
    expect(loadOriginConfig(["--bundle-ranges", "4"], env).bundleRanges).toBe(4);
    expect(loadOriginConfig([], { ...env, LIGHTEDGE_BUNDLE_RANGES: "off" }).bundleRanges).toBe(0);
    for (const bad of ["1", "1001", "ten"])
      expect(() => loadOriginConfig(["--bundle-ranges", bad], env)).toThrow(/--bundle-ranges/);
  });

  it("reads the S3 endpoint and region under one name, the deprecated and AWS names after it", () => {
    const s3 = (argv: string[], env: Record<string, string>) => {
      const config = loadOriginConfig([...base, ...argv], env);
      const store = storeEnv(config, env);
      return [config.s3.endpoint, config.s3.region, store.S3_ENDPOINT, store.S3_REGION];
    };
    const all = {
      S3_ENDPOINT: "http://one",
      LIGHTEDGE_S3_ENDPOINT: "http://deprecated",
      AWS_ENDPOINT_URL_S3: "http://aws-s3",
      AWS_ENDPOINT_URL: "http://aws",
      S3_REGION: "one",
      LIGHTEDGE_S3_REGION: "deprecated",
      AWS_REGION: "aws",
    };
    expect(s3([], all)).toEqual(["http://one", "one", "http://one", "one"]);
    expect(s3(["--s3-endpoint", "http://flag", "--s3-region", "flag"], all)).toEqual([
      "http://flag",
      "flag",
      "http://flag",
      "flag",
    ]);
    // Env files rendered by earlier Terraform: the deprecated names still work.
    const old = {
      LIGHTEDGE_S3_ENDPOINT: "http://deprecated",
      LIGHTEDGE_S3_REGION: "auto",
      AWS_REGION: "aws",
    };
    expect(s3([], old)).toEqual(["http://deprecated", "auto", "http://deprecated", "auto"]);
    expect(s3([], { AWS_ENDPOINT_URL_S3: "http://aws-s3", AWS_ENDPOINT_URL: "http://aws" })[0]).toBe(
      "http://aws-s3",
    );
    expect(s3([], { S3_ENDPOINT: "", AWS_ENDPOINT_URL: "http://aws" })[0]).toBe("http://aws");
  });

  it("refuses a seal depth below 100 on mainnet and testnet but allows it on regtest", () => {
    expect(() =>
      loadOriginConfig(["--node", "http://n:1", "--network", "mainnet", "--seal-depth", "99"], {}),
    ).toThrow(ConfigError);
    expect(loadOriginConfig([...base, "--seal-depth", "3"], {}).sealDepth).toBe(3);
  });

  it("accepts user/password or a cookie file for node auth, not both", () => {
    expect(loadOriginConfig([...base, "--node-user", "u", "--node-password", "p"], {}).node.auth).toEqual({
      user: "u",
      password: "p",
    });
    expect(loadOriginConfig([...base], { LIGHTEDGE_NODE_COOKIE: "/c" }).node.auth).toEqual({
      cookieFile: "/c",
    });
    expect(() => loadOriginConfig([...base, "--node-user", "u", "--node-cookie", "/c"], {})).toThrow(
      /either/,
    );
  });

  it("rejects unknown flags, bad numbers, bad stores and a poll interval over one second", () => {
    expect(() => loadOriginConfig([...base, "--bogus"], {})).toThrow(ConfigError);
    expect(() => loadOriginConfig([...base, "--range-size", "ten"], {})).toThrow(/range-size/);
    expect(() => loadOriginConfig([...base, "--store", "ftp://x"], {})).toThrow(/store/);
    expect(() => loadOriginConfig([...base, "--poll-ms", "2000"], {})).toThrow(/poll/);
    expect(() => loadOriginConfig(["--network", "regtest"], {})).toThrow(/--node/);
  });

  it("collects repeated --secret flags (rotation) and parses listen and admin addresses", () => {
    const config = loadOriginConfig(
      [...base, "--secret", "old", "--secret", "new", "--listen", "[::1]:0", "--admin", "off"],
      {},
    );
    expect(config.secrets).toEqual(["old", "new"]);
    expect(config.listen).toEqual({ host: "::1", port: 0 });
    expect(config.admin).toBeUndefined();
  });

  it("merges --secret-file (or LIGHTEDGE_SECRET_FILE) with --secret and LIGHTEDGE_SECRETS", () => {
    const dir = mkdtempSync(join(tmpdir(), "lightedge-config-"));
    try {
      const file = join(dir, "secrets");
      writeFileSync(file, "# rotation: new first\nfile-new\n\nfile-old\n", { mode: 0o600 });
      const flags = loadOriginConfig([...base, "--secret", "flag", "--secret-file", file], {});
      expect(flags.secrets).toEqual(["flag", "file-new", "file-old"]);
      const env = loadOriginConfig(base, { LIGHTEDGE_SECRETS: "env", LIGHTEDGE_SECRET_FILE: file });
      expect(env.secrets).toEqual(["env", "file-new", "file-old"]);
      expect(loadOriginConfig([...base, "--secret-file", file], {}).secrets).toEqual([
        "file-new",
        "file-old",
      ]);
      chmodSync(file, 0o644);
      expect(() => loadOriginConfig([...base, "--secret-file", file], {})).toThrow(/readable by others/);
      expect(() => loadOriginConfig([...base, "--secret-file", join(dir, "none")], {})).toThrow(ConfigError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
