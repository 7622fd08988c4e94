/**
 * Where the dev node's JSON-RPC answers differ from zebrad 7.0.0's in fields or types, by request
 * (test/zebrad/devnode-parity.test.ts checks this list is exactly what differs). Each reason is in
 * test/zebrad/README.md.
 */
export const ACCEPTED_DIFFERENCES: Record<string, string[]> = {};
