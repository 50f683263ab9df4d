/**
 * An HTTP proxy in front of a DynamoDB endpoint that delays each BatchWriteItem call by a random time
 * before it is forwarded and again before its answer goes back, so that calls in flight together reach
 * the table, and their answers reach the client, in another order than they were sent. Other calls
 * pass through at once. Listens on 127.0.0.1 and a free port.
 */
import http from 'node:http';
import { listenOnLoopback } from '../support/loopback.js';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * @param {{ target: string, maxDelayMs: number, random?: () => number }} options
 */
export async function startJitterProxy({ target, maxDelayMs, random = Math.random }) {
  const targetUrl = new URL(target);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 128 });
  const counts = { calls: 0, delayedMs: 0 };
  const delay = async () => {
    const ms = Math.floor(random() * maxDelayMs);
    counts.delayedMs += ms;
    if (ms > 0) await sleep(ms);
  };

  const server = http.createServer(async (req, res) => {
    try {
      /** @type {Buffer[]} */
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const body = Buffer.concat(chunks);
      const batchWrite = String(req.headers['x-amz-target']).endsWith('.BatchWriteItem');
      if (batchWrite) {
        counts.calls++;
        await delay();
      }
      const answer = await new Promise((resolve, reject) => {
        const upstream = http.request(
          { host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: req.url, headers: { ...req.headers, host: targetUrl.host }, agent },
          (response) => {
            /** @type {Buffer[]} */
            const parts = [];
            response.on('data', (part) => parts.push(part));
            response.on('end', () => resolve({ status: response.statusCode ?? 500, headers: response.headers, body: Buffer.concat(parts) }));
            response.on('error', reject);
          },
        );
        upstream.on('error', reject);
        upstream.end(body);
      });
      if (batchWrite) await delay();
      const { 'transfer-encoding': _te, connection: _c, ...headers } = answer.headers;
      res.writeHead(answer.status, { ...headers, 'content-length': answer.body.length });
      res.end(answer.body);
    } catch {
      res.destroy();
    }
  });
  const listening = await listenOnLoopback(server, agent);
  return {
    ...listening,
    counts,
  };
}
