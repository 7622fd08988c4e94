// Structural checks over every Terraform directory, read through @cdktf/hcl2json: variables
// declared and used, inputs that exist, pinned providers, secrets kept sensitive, documentation.
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import {
  type Block,
  declaredTypes,
  isObject,
  loadTfDir,
  locals,
  moduleOutputRefs,
  namedBlocks,
  refs,
  requiredProviders,
  requiredVersion,
  type TfDoc,
  templatefileCalls,
  usedVariables,
} from "./check/hcl.ts";
import { templatePlaceholders } from "./check/names.ts";

const infra = import.meta.dirname;
const moduleDirs = readdirSync(join(infra, "modules")).map((m) => join(infra, "modules", m));
const envDirs = readdirSync(join(infra, "envs")).map((e) => join(infra, "envs", e));
const dirs = [...moduleDirs, ...envDirs];
const docs = new Map<string, TfDoc>();
for (const dir of dirs) docs.set(dir, await loadTfDir(dir));
const doc = (dir: string) => docs.get(dir)!;
const rel = (dir: string) => dir.slice(infra.length + 1);

/** Names that hold credentials: they must be sensitive variables without defaults. */
const SECRET_NAME = /secret|password|access_key|private_key|(^|_)token$/;

const isSensitive = (block: Block | undefined) => block?.sensitive === true;

describe.each(dirs.map((d) => [rel(d), d]))("%s", (_name, dir) => {
  const variables = namedBlocks(doc(dir), "variable");
  const outputs = namedBlocks(doc(dir), "output");

  it("declares every variable it uses and uses every variable it declares", () => {
    const used = usedVariables(doc(dir));
    expect(
      [...used].filter((v) => !variables.has(v)),
      "used, not declared",
    ).toEqual([]);
    expect(
      [...variables.keys()].filter((v) => !used.has(v)),
      "declared, not used",
    ).toEqual([]);
  });

  it("describes every variable and output", () => {
    const blocks = [...variables, ...outputs];
    const bare = blocks.filter(([, b]) => typeof b.description !== "string" || b.description.length < 10);
    expect(bare.map(([n]) => n)).toEqual([]);
  });

  it("keeps credential variables sensitive and without a default", () => {
    for (const [name, block] of variables) {
      if (SECRET_NAME.test(name)) expect(isSensitive(block), `${name} sensitive`).toBe(true);
      if (isSensitive(block)) expect(block.default ?? null, `${name} default`).toBeNull();
    }
  });

  it("marks outputs sensitive when they carry a sensitive variable or a credential", () => {
    for (const [name, block] of outputs) {
      const fromVars = [...refs(block.value, "var")].some((v) => isSensitive(variables.get(v)));
      const credential = SECRET_NAME.test(name) || /\.value\b/.test(JSON.stringify(block.value));
      if (fromVars || credential) expect(isSensitive(block), `output ${name}`).toBe(true);
    }
  });

  it("requires Terraform 1.9+ and pins every provider it uses to one minor", () => {
    expect(requiredVersion(doc(dir))).toMatch(/^>= 1\.(9|[1-9]\d)\./);
    const providers = new Set(declaredTypes(doc(dir)).map((t) => t.split("_")[0]!));
    for (const provider of providers) {
      const spec = requiredProviders(doc(dir)).get(provider);
      expect(spec?.source, `${provider} source`).toBe(`${provider}/${provider}`);
      expect(spec?.version, `${provider} version`).toMatch(/^~> \d+\.\d+\.\d+$/);
    }
  });
});

describe("provider pins", () => {
  it("name the same cloudflare v5 minor in every directory", () => {
    const pins = dirs.map((d) => requiredProviders(doc(d)).get("cloudflare")?.version).filter(Boolean);
    expect(pins.length).toBeGreaterThan(1);
    expect(new Set(pins).size).toBe(1);
    expect(pins[0]).toMatch(/^~> 5\.\d+\.0$/);
  });
});

describe.each(envDirs.map((d) => [rel(d), d]))("module calls in %s", (_name, dir) => {
  const calls = [...namedBlocks(doc(dir), "module")];
  const META = new Set(["source", "version", "count", "for_each", "providers", "depends_on"]);
  const target = (call: Block) => resolve(dir, String(call.source));

  it("pass only inputs the module declares, and every required one", () => {
    for (const [name, call] of calls) {
      const vars = namedBlocks(doc(target(call)), "variable");
      const inputs = Object.keys(call).filter((k) => !META.has(k));
      expect(
        inputs.filter((i) => !vars.has(i)),
        `${name}: unknown inputs`,
      ).toEqual([]);
      const required = [...vars].filter(([, v]) => !("default" in v)).map(([n]) => n);
      expect(
        required.filter((r) => !inputs.includes(r)),
        `${name}: missing inputs`,
      ).toEqual([]);
    }
  });

  it("read only outputs the modules declare", () => {
    const byName = new Map(calls);
    for (const [mod, output] of moduleOutputRefs(doc(dir) as never)) {
      const call = byName.get(mod);
      expect(call, `module.${mod}`).toBeDefined();
      expect(namedBlocks(doc(target(call!)), "output").has(output), `module.${mod}.${output}`).toBe(true);
    }
  });

  it("feed sensitive inputs only from sensitive values", () => {
    const variables = namedBlocks(doc(dir), "variable");
    for (const [name, call] of calls) {
      const moduleVars = namedBlocks(doc(target(call)), "variable");
      for (const [input, value] of Object.entries(call)) {
        const carriesSecret = [...refs(value, "var")].some((v) => isSensitive(variables.get(v)));
        if (carriesSecret) expect(isSensitive(moduleVars.get(input)), `${name}.${input}`).toBe(true);
      }
    }
  });

  it("has a tfvars example naming only declared, non-secret variables", () => {
    const example = readFileSync(join(dir, "terraform.tfvars.example"), "utf8");
    const keys = [...example.matchAll(/^#?\s*([a-z_][a-z0-9_]*)\s*=/gm)].map((m) => m[1]!);
    const variables = namedBlocks(doc(dir), "variable");
    expect(keys.length).toBeGreaterThan(0);
    expect(keys.filter((k) => !variables.has(k))).toEqual([]);
    expect(keys.filter((k) => isSensitive(variables.get(k)))).toEqual([]);
  });
});

describe("the Worker module's bindings", () => {
  const worker = join(infra, "modules/edge-worker");
  const variables = namedBlocks(doc(worker), "variable");
  const values = (local: string) => Object.values(locals(doc(worker))[local] as Block);

  it("give secret_text only sensitive variables", () => {
    for (const secret of values("secret_text")) {
      const text = isObject(secret) ? secret.text : secret;
      const used = [...refs(text ?? null, "var")];
      expect(used.length).toBeGreaterThan(0);
      expect(used.filter((v) => !isSensitive(variables.get(v)))).toEqual([]);
    }
  });

  it("never put a sensitive variable in plain_text", () => {
    const used = values("plain_text").flatMap((v) => [...refs(v, "var")]);
    expect(used.filter((v) => isSensitive(variables.get(v)))).toEqual([]);
  });
});

describe("templates", () => {
  const calls = dirs.flatMap((dir) =>
    templatefileCalls(doc(dir)).map((c) => [rel(dir), c.file, dir, c.keys] as const),
  );

  it("are rendered somewhere", () => {
    expect(calls.length).toBeGreaterThan(0);
  });

  it.each(calls)("%s renders %s with exactly its placeholders", (_name, file, dir, keys) => {
    const passed = new Set(keys);
    const wanted = templatePlaceholders(readFileSync(join(dir, file), "utf8"));
    expect(
      [...wanted].filter((w) => !passed.has(w)),
      "placeholders not passed",
    ).toEqual([]);
    expect(
      [...passed].filter((p) => !wanted.has(p)),
      "passed, not used",
    ).toEqual([]);
  });

  it("exist for every file under templates/", () => {
    for (const dir of moduleDirs) {
      const templatesDir = join(dir, "templates");
      let files: string[] = [];
      try {
        files = readdirSync(templatesDir);
      } catch {}
      const rendered = calls.filter(([, , d]) => d === dir).map(([, f]) => f);
      for (const f of files) expect(rendered, `${rel(dir)}/templates/${f}`).toContain(`templates/${f}`);
    }
  });
});
