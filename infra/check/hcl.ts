// Reads Terraform directories through @cdktf/hcl2json (HCL → JSON in WASM; no terraform init,
// no providers) and answers the structural questions the infra tests ask.
import { convertFiles } from "@cdktf/hcl2json";

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Block = { [key: string]: Json };
export type TfDoc = { [kind: string]: Json };

/** Every *.tf file of one directory, merged (a Terraform module). */
export async function loadTfDir(dir: string): Promise<TfDoc> {
  return (await convertFiles(dir)) as TfDoc;
}

/** Named blocks of one kind (`variable`, `output`, `module`, `locals`...): name → body. */
export function namedBlocks(doc: TfDoc, kind: string): Map<string, Block> {
  const out = new Map<string, Block>();
  const group = doc[kind];
  if (!isObject(group)) return out;
  for (const [name, bodies] of Object.entries(group)) {
    if (Array.isArray(bodies) && isObject(bodies[0])) out.set(name, bodies[0]);
  }
  return out;
}

/** All `locals` blocks merged into one name → expression map. */
export function locals(doc: TfDoc): Block {
  const all = doc.locals;
  return Object.assign({}, ...(Array.isArray(all) ? all.filter(isObject) : []));
}

/** Resource or data source types declared (`cloudflare_r2_bucket`, ...). */
export function declaredTypes(doc: TfDoc): string[] {
  return ["resource", "data"].flatMap((kind) => Object.keys(isObject(doc[kind]) ? doc[kind] : {}));
}

/** `required_providers` entries: provider name → { source, version }. */
export function requiredProviders(doc: TfDoc): Map<string, Block> {
  const out = new Map<string, Block>();
  for (const tf of asArray(doc.terraform)) {
    for (const rp of asArray(isObject(tf) ? tf.required_providers : null)) {
      if (!isObject(rp)) continue;
      for (const [name, spec] of Object.entries(rp)) if (isObject(spec)) out.set(name, spec);
    }
  }
  return out;
}

/** `required_version` of the terraform block, if any. */
export function requiredVersion(doc: TfDoc): string | undefined {
  const tf = asArray(doc.terraform).find(isObject);
  return tf && typeof tf.required_version === "string" ? tf.required_version : undefined;
}

/** Names after `prefix.` in every expression inside `value` (e.g. prefix "var" → var.x). */
export function refs(value: Json | undefined, prefix: string): Set<string> {
  const text = JSON.stringify(value ?? null);
  const re = new RegExp(`(?<![\\w.])${prefix}\\.([A-Za-z_][A-Za-z0-9_-]*)`, "g");
  return new Set([...text.matchAll(re)].map((m) => m[1]!));
}

/** `module.<name>.<output>` pairs referenced inside `value`. */
export function moduleOutputRefs(value: Json | undefined): Array<[string, string]> {
  const text = JSON.stringify(value ?? null);
  return [...text.matchAll(/(?<![\w.])module\.([A-Za-z_][\w-]*)\.([A-Za-z_][\w-]*)/g)].map((m) => [
    m[1]!,
    m[2]!,
  ]);
}

/** Variables used anywhere except inside `variable` blocks (their own validations don't count). */
export function usedVariables(doc: TfDoc): Set<string> {
  const { variable: _declared, ...rest } = doc;
  return refs(rest as Json, "var");
}

/** `templatefile("${path.module}/FILE", { k = ... })` calls: FILE and the top-level keys k. */
export function templatefileCalls(doc: TfDoc): Array<{ file: string; keys: string[] }> {
  const out: Array<{ file: string; keys: string[] }> = [];
  for (const text of strings(doc)) {
    for (const m of text.matchAll(/templatefile\("\$\{path\.module\}\/([^"]+)",\s*\{/g)) {
      const body = balancedBody(text, m.index + m[0].length);
      out.push({ file: m[1]!, keys: [...body.matchAll(/^\s*([a-z_][a-z0-9_]*)\s*=/gm)].map((k) => k[1]!) });
    }
  }
  return out;
}

/** The text after an opening brace up to its matching close, with nested {...} blanked out. */
function balancedBody(text: string, start: number): string {
  let depth = 1;
  let body = "";
  for (let i = start; i < text.length && depth > 0; i++) {
    const c = text[i]!;
    depth += c === "{" ? 1 : c === "}" ? -1 : 0;
    if (depth === 1 && c !== "}") body += c;
  }
  return body;
}

function* strings(value: Json | TfDoc): Generator<string> {
  if (typeof value === "string") yield value;
  else if (Array.isArray(value)) for (const v of value) yield* strings(v);
  else if (isObject(value)) for (const v of Object.values(value)) yield* strings(v);
}

export function isObject(v: unknown): v is Block {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function asArray(v: Json | undefined): Json[] {
  return Array.isArray(v) ? v : [];
}
