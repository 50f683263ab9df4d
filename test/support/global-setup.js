import { startLocalServers } from '../../local/servers.js';

export const TEST_BUCKET = 'test-imports';

/** @param {{ provide: (key: string, value: unknown) => void }} context */
export default async function setup({ provide }) {
  const servers = await startLocalServers({ buckets: [TEST_BUCKET] });
  provide('localEnv', servers.env);
  return () => servers.stop();
}
