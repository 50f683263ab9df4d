/**
 * An HTTP proxy in front of the S3 emulator that breaks object downloads the way a bad network does.
 * Each GET of an object takes the next planned fault, if any: after `afterBytes` bytes of the body the
 * proxy either stops sending and holds the connection open (stall) or resets it (reset). Requests are
 * forwarded byte for byte, Host header included, so their signatures stay valid. Writes (PUT, POST) that
 * `refuseWrites` names (by key, method and query) are answered 403 AccessDenied without being forwarded.
 * Listens on 127.0.0.1 and a free port.
 */
import http from 'node:http';
import { listenOnLoopback } from './loopback.js';

/**
 * @typedef {object} BodyFault
 * @property {'stall' | 'reset'} kind
 * @property {number} afterBytes  body bytes sent before the fault
 */

/**
 * @param {{ target: string, faults?: BodyFault[], refuseWrites?: (key: string, method: string, query: URLSearchParams) => boolean, refuseAfterMs?: number }} options
 *   refuseAfterMs: how long a refused write waits for its answer, as a slow part upload would
 */
export async function startS3FaultProxy({ target, faults = [], refuseWrites = () => false, refuseAfterMs = 0 }) {
  const planned = [...faults];
  /** @type {{ gets: number, stalls: number, resets: number, ranges: string[], refusedWrites: number }} */
  const counts = { gets: 0, stalls: 0, resets: 0, ranges: [], refusedWrites: 0 };
  const targetUrl = new URL(target);
  const agent = new http.Agent({ keepAlive: true });

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const key = decodeURIComponent(url.pathname.split('/').slice(2).join('/'));
    if ((req.method === 'PUT' || req.method === 'POST') && refuseWrites(key, req.method, url.searchParams)) {
      counts.refusedWrites++;
      req.resume();
      return void setTimeout(() => {
        res.writeHead(403, { 'content-type': 'application/xml' });
        res.end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code><Message>Access Denied</Message></Error>');
      }, refuseAfterMs);
    }
    const upstream = http.request({ host: targetUrl.hostname, port: targetUrl.port, method: req.method, path: req.url, headers: req.headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      const segments = new URL(req.url ?? '/', 'http://x').pathname.split('/').filter(Boolean);
      const objectGet = req.method === 'GET' && segments.length >= 2 && (answer.statusCode ?? 0) < 300;
      if (!objectGet) return answer.pipe(res);
      counts.gets++;
      counts.ranges.push(String(req.headers.range ?? ''));
      const fault = planned.shift();
      if (fault === undefined) return answer.pipe(res);
      let sent = 0;
      const strike = () => {
        answer.destroy();
        if (fault.kind === 'reset') {
          counts.resets++;
          res.socket?.resetAndDestroy();
        } else {
          counts.stalls++; // the connection stays open and silent until the client gives up
        }
      };
      if (fault.afterBytes === 0) {
        res.flushHeaders();
        return strike();
      }
      answer.on('data', (/** @type {Buffer} */ chunk) => {
        if (sent >= fault.afterBytes) return;
        const part = chunk.subarray(0, fault.afterBytes - sent);
        sent += part.length;
        // Strike once the bytes before the fault have reached the socket.
        if (sent < fault.afterBytes) res.write(part);
        else res.write(part, strike);
      });
      answer.on('end', () => res.end());
    });
    upstream.on('error', () => res.socket?.destroy());
    req.pipe(upstream);
  });
  const listening = await listenOnLoopback(server, agent);
  return {
    ...listening,
    counts,
    /** @param {BodyFault} fault */
    plan: (fault) => planned.push(fault),
  };
}
