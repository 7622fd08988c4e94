// The names registry (infra/names.json) and readers for the two other places that must agree
// with it: edge/env.ts's `Env` interface and wrangler.toml. Pure text parsing, no I/O.

export interface NamesRegistry {
  worker: { r2Buckets: string[]; rateLimits: string[]; vars: string[]; secrets: string[] };
  origin: { env: string[]; secrets: string[] };
  originSecretHeader: string;
}

export interface EnvMember {
  name: string;
  type: string;
  /** Its doc comment starts with "Secret:" (set with `wrangler secret put`). */
  secret: boolean;
}

/** Members of `export interface Env { ... }` with their type and doc comment. */
export function envMembers(source: string): EnvMember[] {
  const body = /export interface Env\s*\{([\s\S]*?)\n\}/.exec(source)?.[1];
  if (body === undefined) throw new Error("edge/env.ts: no `export interface Env { ... }`");
  const members: EnvMember[] = [];
  let comment = "";
  for (const line of body.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("/**") || trimmed.startsWith("*")) comment += trimmed;
    const member = /^([A-Za-z_][A-Za-z0-9_]*)\??\s*:\s*([^;]+);/.exec(trimmed);
    if (member) {
      members.push({ name: member[1]!, type: member[2]!.trim(), secret: /\/\*\*\s*Secret:/.test(comment) });
      comment = "";
    } else if (trimmed === "" || trimmed.startsWith("//")) {
      comment = "";
    }
  }
  return members;
}

export interface WranglerNames {
  name?: string;
  compatibilityDate?: string;
  compatibilityFlags: string[];
  /** Keys of every `[vars]` / `[env.X.vars]` table. */
  vars: string[];
  /** `binding = "..."` of every array-of-tables entry ([[r2_buckets]], ...): binding → table. */
  bindings: Map<string, string>;
  /** bucket_name of each [[r2_buckets]] entry, by binding. */
  bucketNames: Map<string, string>;
  /** `simple = { limit, period }` of each [[ratelimits]] entry, by name. */
  rateLimits: Map<string, { limit: number; period: number }>;
  /** Values of the `[vars]` table (strings unquoted). */
  varValues: Map<string, string>;
  /** UPPER_CASE words in comments (documented, not declared, names such as secrets). */
  commented: Set<string>;
}

/** The subset of TOML wrangler.toml uses: top-level keys, [tables], [[arrays]], comments. */
export function wranglerNames(source: string): WranglerNames {
  const out: WranglerNames = {
    compatibilityFlags: [],
    vars: [],
    bindings: new Map(),
    bucketNames: new Map(),
    rateLimits: new Map(),
    varValues: new Map(),
    commented: new Set(),
  };
  let table = "";
  let binding: string | undefined;
  for (const raw of source.split("\n")) {
    const hash = raw.indexOf("#");
    if (hash >= 0)
      for (const m of raw.slice(hash).matchAll(/\b[A-Z][A-Z0-9_]{2,}\b/g)) out.commented.add(m[0]);
    const line = (hash >= 0 ? raw.slice(0, hash) : raw).trim();
    const header = /^\[\[?\s*([^\]]+?)\s*\]\]?$/.exec(line);
    if (header) {
      table = header[1]!;
      binding = undefined;
      continue;
    }
    const kv = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    if (!kv) continue;
    const [key, value] = [kv[1]!, kv[2]!.trim()];
    if (table === "") readTopLevel(out, key, value);
    else if (table === "vars" || table.endsWith(".vars")) {
      out.vars.push(key);
      out.varValues.set(key, unquote(value));
    } else if (key === "binding" || (key === "name" && table === "ratelimits")) {
      binding = unquote(value);
      out.bindings.set(binding, table);
    } else if (key === "bucket_name" && binding) out.bucketNames.set(binding, unquote(value));
    else if (key === "simple" && binding && table === "ratelimits") {
      const limit = /\blimit\s*=\s*(\d+)/.exec(value)?.[1];
      const period = /\bperiod\s*=\s*(\d+)/.exec(value)?.[1];
      out.rateLimits.set(binding, { limit: Number(limit), period: Number(period) });
    }
  }
  return out;
}

function readTopLevel(out: WranglerNames, key: string, value: string): void {
  if (key === "name") out.name = unquote(value);
  if (key === "compatibility_date") out.compatibilityDate = unquote(value);
  if (key === "compatibility_flags") out.compatibilityFlags = JSON.parse(value) as string[];
}

function unquote(value: string): string {
  return value.replace(/^"(.*)"$/, "$1");
}

/** KEY=value lines of an env file template (comments and blanks skipped). */
export function envFileKeys(source: string): string[] {
  return source
    .split("\n")
    .map((l) => /^([A-Z][A-Z0-9_]*)=/.exec(l.trim())?.[1])
    .filter((k): k is string => k !== undefined);
}

/** `${name}` placeholders and `%{ if name }` conditions of a Terraform template. */
export function templatePlaceholders(source: string): Set<string> {
  const interp = [...source.matchAll(/(?<!\$)\$\{\s*([a-z_][a-z0-9_]*)\s*\}/g)].map((m) => m[1]!);
  const directives = [...source.matchAll(/%\{\s*(?:if|for \w+ in)\s+([a-z_][a-z0-9_]*)\s*\}/g)].map(
    (m) => m[1]!,
  );
  return new Set([...interp, ...directives]);
}
