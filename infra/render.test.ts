// Evaluates the provider-free parts of the modules with `terraform console` (no init, no
// providers): the Worker's binding list and the origin host's rendered files.
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { envFileKeys, type NamesRegistry } from "./check/names.ts";
import { consoleEval, hasTerraform } from "./check/terraform-cli.ts";

const infra = import.meta.dirname;
const registry = JSON.parse(readFileSync(join(infra, "names.json"), "utf8")) as NamesRegistry;
const present = hasTerraform();
const title = present
  ? "rendered with terraform console"
  : "rendered with terraform console (skipped: terraform not on PATH)";
const scratch = mkdtempSync(join(tmpdir(), "lightedge-infra-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

type Binding = { name: string; type: string };
const SECRET = "0123456789abcdef0123456789abcdef";

describe.skipIf(!present)(`the Worker module's bindings, ${title}`, () => {
  const dir = join(scratch, "edge-worker");
  cpSync(join(infra, "modules/edge-worker"), dir, {
    recursive: true,
    filter: (f) => !f.endsWith("main.tf") && !f.endsWith("versions.tf") && !f.endsWith("outputs.tf"),
  });
  const bindings = (vars: Record<string, string>) =>
    consoleEval(dir, { account_id: "a", bundle_path: "x.js", ...vars }, [
      "[for b in local.bindings : { name = b.name, type = b.type }]",
    ])[0] as Binding[];
  const names = (list: Binding[], type: string) =>
    list
      .filter((b) => b.type === type)
      .map((b) => b.name)
      .sort();

  it("carry every registry name with its binding type when everything is configured", () => {
    const all = bindings({
      bucket_name: "blocks",
      origin_url: "https://origin.example.com",
      origin_secret: SECRET,
      s3_endpoint: "https://acct.r2.cloudflarestorage.com",
      s3_access_key_id: "AK",
      s3_secret_access_key: "SK",
    });
    expect(names(all, "r2_bucket")).toEqual([...registry.worker.r2Buckets].sort());
    expect(names(all, "ratelimit")).toEqual([...registry.worker.rateLimits].sort());
    expect(names(all, "plain_text")).toEqual([...registry.worker.vars].sort());
    expect(names(all, "secret_text")).toEqual([...registry.worker.secrets].sort());
  });

  it("bind no secret and no bucket that is not configured", () => {
    const bare = bindings({});
    expect(names(bare, "secret_text")).toEqual([]);
    expect(names(bare, "r2_bucket")).toEqual([]);
  });

  it("refuse an origin URL without its secret", () => {
    expect(() => bindings({ origin_url: "https://origin.example.com" })).toThrow(/origin_secret is required/);
  });
});

describe.skipIf(!present)(`the origin host files, ${title}`, () => {
  const dir = join(scratch, "origin-host");
  cpSync(join(infra, "modules/origin-host"), dir, { recursive: true });
  copyFileSync(join(infra, "modules/origin-host/variables.tf"), join(dir, "variables.tf"));
  const vars = (secrets: string) => ({
    network: "testnet",
    store_bucket: "blocks",
    store_prefix: "lightedge/",
    s3_endpoint: "https://acct.r2.cloudflarestorage.com",
    s3_access_key_id: "AK",
    s3_secret_access_key: "SK",
    origin_secrets: secrets,
  });
  const render = (secrets: string) =>
    consoleEval(dir, vars(secrets), [
      "nonsensitive(local.env_file)",
      'yamldecode(trimprefix(nonsensitive(local.cloud_init), "#cloud-config\\n"))',
      "local.services",
    ]) as [
      string,
      { write_files: Array<{ path: string; content: string; permissions: string }>; runcmd: string[][] },
      string[],
    ];

  it("set every origin environment name, with both secrets during a rotation", () => {
    const [env] = render(`["${SECRET}","${SECRET.toUpperCase()}"]`);
    const keys = envFileKeys(env).sort();
    expect(keys).toEqual(registry.origin.env.filter((k) => !k.startsWith("LIGHTEDGE_TLS_")).sort());
    expect(env).toContain(`LIGHTEDGE_SECRETS=${SECRET},${SECRET.toUpperCase()}\n`);
    expect(env).toContain("LIGHTEDGE_NODE_URL=http://127.0.0.1:18232\n");
    expect(env).toContain("LIGHTEDGE_STORE=s3://blocks/lightedge/\n");
  });

  it("write a cloud-init that installs the env file privately and starts zebrad before the origin", () => {
    const [env, cloudInit, services] = render(`["${SECRET}"]`);
    const envFile = cloudInit.write_files.find((f) => f.path === "/etc/lightedge/origin-testnet.env");
    expect(envFile?.permissions).toBe("0600");
    expect(envFile?.content).toBe(env);
    expect(services).toEqual(["zebrad@testnet.service", "lightedge-origin@testnet.service"]);
    expect(cloudInit.runcmd.at(-1)).toEqual(["systemctl", "enable", "--now", ...services]);
    const unit =
      cloudInit.write_files.find((f) => f.path.endsWith("lightedge-origin@.service"))?.content ?? "";
    expect(unit).toMatch(
      /ExecStart=\S+ \S+\/bin\/lightedge\.js origin --node \$\{LIGHTEDGE_NODE_URL\} --network \$\{LIGHTEDGE_NETWORK\} --store \$\{LIGHTEDGE_STORE\} --listen \$\{LIGHTEDGE_LISTEN\}\n/,
    );
  });

  it("refuse a short origin secret", () => {
    expect(() => render(`["short"]`)).toThrow(/origin_secrets must hold/);
  });
});
