// The names registry agrees with edge/env.ts, wrangler.toml, the Worker module and the origin
// host's environment file. Names are read from those files, never listed here.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadTfDir, locals, namedBlocks } from "./check/hcl.ts";
import { envFileKeys, envMembers, type NamesRegistry, wranglerNames } from "./check/names.ts";

const root = join(import.meta.dirname, "..");
const read = (path: string) => readFileSync(join(root, path), "utf8");
const registry = JSON.parse(read("infra/names.json")) as NamesRegistry;
const workerNames = [
  ...registry.worker.r2Buckets,
  ...registry.worker.rateLimits,
  ...registry.worker.vars,
  ...registry.worker.secrets,
];
const env = envMembers(read("edge/env.ts"));
const wrangler = wranglerNames(read("wrangler.toml"));
const sorted = (names: Iterable<string>) => [...names].sort();

function listTs(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".ts") && !f.endsWith(".test.ts") && !f.includes("node_modules"))
    .map((f) => join(dir, f));
}

describe("the names registry", () => {
  it("lists each Worker name once", () => {
    expect(new Set(workerNames).size).toBe(workerNames.length);
  });

  it("holds exactly the members of edge/env.ts's Env", () => {
    expect(sorted(workerNames)).toEqual(sorted(env.map((m) => m.name)));
  });

  it("calls secrets exactly the Env members documented as secrets", () => {
    expect(sorted(registry.worker.secrets)).toEqual(sorted(env.filter((m) => m.secret).map((m) => m.name)));
  });

  it("calls rate limits exactly the Env members typed RateLimit", () => {
    expect(sorted(registry.worker.rateLimits)).toEqual(
      sorted(env.filter((m) => m.type === "RateLimit").map((m) => m.name)),
    );
  });

  it("calls R2 buckets exactly the Env members typed R2Bucket", () => {
    expect(sorted(registry.worker.r2Buckets)).toEqual(
      sorted(env.filter((m) => m.type === "R2Bucket").map((m) => m.name)),
    );
  });
});

describe("wrangler.toml", () => {
  it("declares or documents in a comment every registry name", () => {
    const declared = new Set([...wrangler.vars, ...wrangler.bindings.keys()]);
    const missing = workerNames.filter((n) => !declared.has(n) && !wrangler.commented.has(n));
    expect(missing).toEqual([]);
  });

  it("declares no var or binding the registry lacks", () => {
    const declared = [...wrangler.vars, ...wrangler.bindings.keys()];
    expect(declared.filter((n) => !workerNames.includes(n))).toEqual([]);
  });

  it("never declares a secret as a plain var", () => {
    expect(wrangler.vars.filter((n) => registry.worker.secrets.includes(n))).toEqual([]);
  });

  it("binds the registry's R2 buckets as r2_buckets", () => {
    for (const name of registry.worker.r2Buckets) expect(wrangler.bindings.get(name)).toBe("r2_buckets");
  });

  it("binds the registry's rate limits as ratelimits, with the period RATE_LIMIT_PERIOD_SECONDS names", () => {
    const period = Number(wrangler.varValues.get("RATE_LIMIT_PERIOD_SECONDS"));
    expect([10, 60]).toContain(period);
    for (const name of registry.worker.rateLimits) {
      expect(wrangler.bindings.get(name)).toBe("ratelimits");
      expect(wrangler.rateLimits.get(name)?.period).toBe(period);
      expect(wrangler.rateLimits.get(name)?.limit).toBeGreaterThan(0);
    }
  });
});

describe("the Terraform Worker module", async () => {
  const worker = locals(await loadTfDir(join(root, "infra/modules/edge-worker")));
  const keys = (local: string) => sorted(Object.keys(worker[local] as object));

  it("binds the registry's R2 buckets, vars and secrets under the same names", () => {
    expect(keys("r2_buckets")).toEqual(sorted(registry.worker.r2Buckets));
    expect(keys("rate_limits")).toEqual(sorted(registry.worker.rateLimits));
    expect(keys("plain_text")).toEqual(sorted(registry.worker.vars));
    expect(keys("secret_text")).toEqual(sorted(registry.worker.secrets));
  });

  it("defaults to wrangler.toml's script name, compatibility date and flags", async () => {
    const vars = namedBlocks(await loadTfDir(join(root, "infra/modules/edge-worker")), "variable");
    expect(vars.get("script_name")?.default).toBe(wrangler.name);
    expect(vars.get("compatibility_date")?.default).toBe(wrangler.compatibilityDate);
    expect(vars.get("compatibility_flags")?.default).toEqual(wrangler.compatibilityFlags);
  });

  it("creates by default the bucket wrangler.toml binds", async () => {
    const vars = namedBlocks(await loadTfDir(join(root, "infra/modules/r2-bucket")), "variable");
    const bound = registry.worker.r2Buckets.map((b) => wrangler.bucketNames.get(b));
    expect(bound).toContain(vars.get("bucket_name")?.default);
  });
});

describe("the origin host's environment", () => {
  const template = read("infra/modules/origin-host/templates/origin.env.tftpl");

  it("sets exactly the registry's origin names", () => {
    expect(sorted(envFileKeys(template))).toEqual(sorted(registry.origin.env));
  });

  it("lists origin secrets among the origin names", () => {
    expect(registry.origin.secrets.filter((n) => !registry.origin.env.includes(n))).toEqual([]);
  });

  it("uses the secret header the edge sends and the origin checks", () => {
    for (const dir of ["edge", "origin"]) {
      const sources = listTs(join(root, dir)).map((f) => readFileSync(f, "utf8"));
      expect(sources.some((s) => s.includes(`"${registry.originSecretHeader}"`))).toBe(true);
    }
  });

  const config = join(root, "origin/config.ts");
  it.skipIf(!existsSync(config))("is read by origin/config.ts (LIGHTEDGE_* names)", () => {
    const source = readFileSync(config, "utf8");
    const own = registry.origin.env.filter((n) => n.startsWith("LIGHTEDGE_"));
    expect(own.filter((n) => !source.includes(n))).toEqual([]);
  });

  const storeSpec = join(root, "origin/store/store-spec.ts");
  it.skipIf(!existsSync(storeSpec))(
    "is read by origin/store/store-spec.ts (S3_* names, as the Worker's)",
    () => {
      const source = readFileSync(storeSpec, "utf8");
      const s3 = registry.origin.env.filter((n) => n.startsWith("S3_"));
      expect(s3.length).toBeGreaterThan(0);
      expect(s3.filter((n) => !source.includes(`"${n}"`))).toEqual([]);
    },
  );
});
