/**
 * Where the dev node's JSON-RPC answers differ from zebrad 7.0.0's in fields, types or error codes,
 * by request (test/zebrad/devnode-parity.test.ts checks this is exactly what differs; the reasons
 * are in test/zebrad/README.md). Fields only zebrad sends are ones neither lightedge nor
 * lightwalletd reads; "trees.*: only dev node" is chain content (zebrad lists a pool's tree only
 * once it has notes, and the zebrad chain here has none).
 */
const blockOnlyZebrad = [
  "$.result.chainSupply: only zebrad",
  "$.result.finalorchardroot: only zebrad",
  "$.result.finalsaplingroot: only zebrad",
  "$.result.nTx: only zebrad",
  "$.result.solution: only zebrad",
  "$.result.trees.ironwood: only dev node",
  "$.result.trees.orchard: only dev node",
  "$.result.trees.sapling: only dev node",
  "$.result.valuePools: only zebrad",
];

export const ACCEPTED_DIFFERENCES: Record<string, string[]> = {
  getblockchaininfo: [
    "$.result.chainSupply: only zebrad",
    "$.result.upgrades.37a5165b: only dev node",
    "$.result.upgrades.4dec4df0: only dev node",
    "$.result.upgrades.5437f330: only dev node",
    "$.result.upgrades.c8e71055: only dev node",
    "$.result.valuePools: only zebrad",
  ],
  "getblockhash past the tip": ["$.error: zebrad code -1, dev node code -32602"],
  "getblock 1 by height": blockOnlyZebrad,
  "getblock 1 by hash": blockOnlyZebrad,
  // Transaction objects: the dev node sends the identifying fields zebrad sends (txid, hex,
  // height, …), not the decoded parts lightedge never reads.
  "getblock 2": [
    ...blockOnlyZebrad,
    ...[
      "authdigest",
      "expiryheight",
      "orchard",
      "vShieldedOutput",
      "vShieldedSpend",
      "valueBalance",
      "valueBalanceZat",
      "versiongroupid",
      "vin",
      "vjoinsplit",
      "vout",
    ].map((f) => `$.result.tx[].${f}: only zebrad`),
  ].sort(),
  z_gettreestate: ["$.result.ironwood: only dev node"],
  "getrawtransaction 1": [
    "authdigest",
    "blocktime",
    "expiryheight",
    "in_active_chain",
    "locktime",
    "orchard",
    "overwintered",
    "size",
    "time",
    "vShieldedOutput",
    "vShieldedSpend",
    "valueBalance",
    "valueBalanceZat",
    "version",
    "versiongroupid",
    "vin",
    "vjoinsplit",
    "vout",
  ].map((f) => `$.result.${f}: only zebrad`),
};
