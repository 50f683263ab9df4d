/**
 * A test server on 127.0.0.1 and a free port: its endpoint, and a stop that closes its connections (and
 * the agent it forwards with, if any).
 */

/**
 * @param {import('node:http').Server} server
 * @param {import('node:http').Agent} [agent]
 * @returns {Promise<{ endpoint: string, stop: () => Promise<void> }>}
 */
export async function listenOnLoopback(server, agent) {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(() => resolve(undefined)));
      agent?.destroy();
    },
  };
}
