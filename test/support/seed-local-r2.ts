import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { getPlatformProxy } from "wrangler";

const wranglerToml = fileURLToPath(new URL("../../wrangler.toml", import.meta.url));

/**
 * Puts objects into the local R2 bucket that `wrangler dev --persist-to DIR` reads, through
 * wrangler's own platform proxy on the same persistence directory (no copy of its file format).
 */
export async function seedLocalR2(
  persistDir: string,
  objects: ReadonlyMap<string, Uint8Array>,
): Promise<void> {
  const proxy = await getPlatformProxy<{ BLOCKS: R2BucketLike }>({
    configPath: wranglerToml,
    // wrangler dev --persist-to DIR keeps its state under DIR/v3; the proxy takes that root as is.
    persist: { path: join(persistDir, "v3") },
  });
  try {
    // A few puts at a time: each crosses the proxy's socket, so overlapping them hides latency.
    const queue = [...objects];
    const worker = async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift())
        await proxy.env.BLOCKS.put(item[0], item[1]);
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
  } finally {
    await proxy.dispose();
  }
}

interface R2BucketLike {
  put(key: string, value: Uint8Array): Promise<unknown>;
}
