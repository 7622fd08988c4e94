import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// Two projects: Node (origin, proto, integration tests) and workerd (the edge worker, with the
// real R2 binding declared in wrangler.toml).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "node",
          environment: "node",
          include: [
            "origin/**/*.test.ts",
            "proto/**/*.test.ts",
            "test/**/*.test.ts",
            "bench/**/*.test.ts",
            "infra/**/*.test.ts",
          ],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        plugins: [
          cloudflareTest({
            wrangler: { configPath: "./wrangler.toml" },
            // Small budgets so edge/rpc/rate-limit.test.ts can exceed them (the real bindings keep
            // wrangler.toml's limits).
            miniflare: {
              ratelimits: {
                TEST_NODE_RATE_LIMIT: { namespace_id: "91001", simple: { limit: 3, period: 60 } },
                TEST_SEND_RATE_LIMIT: { namespace_id: "91002", simple: { limit: 2, period: 60 } },
              },
            },
          }),
        ],
        test: {
          name: "workers",
          include: ["edge/**/*.test.ts"],
          testTimeout: 30_000,
          // Seeds sealed ranges from the real corpus and starts test origins (edge tests).
          // moto-global-setup: moto_server for the edge store readers (edge/store/*.test.ts).
          globalSetup: ["test/support/edge-global-setup.ts", "test/support/moto-global-setup.ts"],
        },
      },
    ],
  },
});
