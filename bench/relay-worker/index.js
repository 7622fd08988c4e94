/**
 * The Worker floor for range answers (bench/README.md, "The Worker's floor"): what any Worker pays
 * to send bytes it reads with one subrequest. It relays the static baseline's request to the static
 * server and returns that response as it came — no routing, metadata, framing or end-of-stream
 * bytes, nothing a lightwallet answer could do without. Run by the same Miniflare as the edge in
 * Worker-alone mode (bench/lib/fixtures.ts), its CPU counted the same way, the static server's not.
 */
export default {
  async fetch(request, env) {
    const { search } = new URL(request.url);
    return fetch(`${env.RELAY_TARGET}${search}`);
  },
};
