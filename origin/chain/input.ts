/**
 * Interprets file contents as either hex text (as in the corpus: lowercase hex and a trailing
 * newline; whitespace ignored) or raw bytes. Raw chain data never starts with a hex digit pair
 * followed only by hex (a block starts 04000000, a v1 tx 01000000, in binary), so this is safe.
 */
export function decodeHexOrRaw(content: Uint8Array): Uint8Array {
  let digits = 0;
  for (let i = 0; i < content.length; i++) {
    const c = content[i]!;
    const hex = (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
    const space = c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
    if (!hex && !space) return content;
    if (hex) digits++;
  }
  if (digits === 0 || digits % 2 !== 0) return content;
  const text = new TextDecoder().decode(content).replace(/\s+/g, "");
  return Uint8Array.from(Buffer.from(text, "hex"));
}
