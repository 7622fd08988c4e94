// TEMPORARY until proto/history/address.ts lands: the address key of a P2PKH/P2SH script.
export function addressKeyOfScript(s: Uint8Array): Uint8Array | undefined {
  if (s.length === 25 && s[0] === 0x76 && s[1] === 0xa9 && s[2] === 0x14 && s[23] === 0x88 && s[24] === 0xac)
    return Uint8Array.from([...s.subarray(3, 23), 0]);
  if (s.length === 23 && s[0] === 0xa9 && s[1] === 0x14 && s[22] === 0x87)
    return Uint8Array.from([...s.subarray(2, 22), 1]);
  return undefined;
}
