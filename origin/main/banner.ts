/** What `npm start` prints once everything answers (pure: the command writes it). */
export interface BannerInput {
  /** "SYNTHETIC chain (not Zcash mainnet): …" or "node http://… (mainnet)". */
  source: string;
  edgeUrl: string;
  originUrl: string;
  adminUrl?: string;
  devnodeUrl?: string;
  dataDir: string;
  /** Indexed and sealed tips when known (dev chains are synced before the banner). */
  tip?: number;
  sealedTip?: number;
  seconds: number;
}

const RPC = "cash.z.wallet.sdk.rpc.CompactTxStreamer";

/** The one-line example call: Connect JSON against the edge, as any HTTP client can send it. */
export function exampleCall(edgeUrl: string): string {
  return `curl -s -X POST -H 'content-type: application/json' -d '{}' ${edgeUrl}/${RPC}/GetLatestBlock`;
}

export function renderBanner(b: BannerInput): string {
  const row = (k: string, v: string) => `  ${k.padEnd(29)} ${v}`;
  const lines = [
    "",
    `lightedge is running (up in ${b.seconds.toFixed(1)} s) on ${b.source}`,
    row("edge, gRPC-web + Connect:", `${b.edgeUrl}   (browser wallets; CORS open)`),
    row("origin, gRPC + Connect:", `${b.originUrl}   (mobile wallets; the edge's upstream)`),
  ];
  if (b.adminUrl) {
    lines.push(row("status page:", `${b.adminUrl}/status`));
    lines.push(row("metrics, health:", `${b.adminUrl}/metrics  ${b.adminUrl}/healthz`));
  }
  if (b.devnodeUrl)
    lines.push(row("dev node JSON-RPC + control:", `${b.devnodeUrl}  ${b.devnodeUrl}control/state`));
  lines.push(row("data (directory store):", b.dataDir));
  if (b.tip !== undefined) lines.push(row("indexed:", `tip ${b.tip}, sealed to ${b.sealedTip ?? -1}`));
  lines.push("", "try:", `  ${exampleCall(b.edgeUrl)}`, "", "ready — Ctrl-C stops everything", "");
  return lines.join("\n");
}
