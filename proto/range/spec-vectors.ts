/**
 * The test vectors printed in proto/range-format.md, read out of its text (the tests read the file
 * and pass its text: this module stays pure). A vector is a fenced block opened with
 * "```text <tag>"; an objects vector is a key line (`v1/…`) followed by that object's hex, wrapped.
 */

/** The lines of the block tagged `tag`, trimmed of the surrounding blank lines. */
export function specVectorLines(spec: string, tag: string): string[] {
  const fence = "```";
  const match = new RegExp(`${fence}text ${tag}\\n([\\s\\S]*?)${fence}`).exec(spec);
  if (!match) throw new Error(`no ${tag} block in range-format.md`);
  return match[1]!.trim().split("\n");
}

/** The objects of the block tagged `tag`: key → hex (the wrapped lines joined). */
export function specVectorObjects(spec: string, tag: string): Map<string, string> {
  const out = new Map<string, string>();
  let key = "";
  for (const line of specVectorLines(spec, tag)) {
    if (line.startsWith("v1/")) {
      key = line;
      out.set(key, "");
    } else out.set(key, out.get(key)! + line.trim());
  }
  return out;
}
