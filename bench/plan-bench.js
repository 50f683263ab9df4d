/**
 * Plan of a large object, as the state machine runs it (issue 47): the shard planner over a generated
 * CSV served from any byte on (a ranged-read source of a size no disk here holds), with Plan's time budget
 * per invocation, so that each invocation stops at a boundary and the next goes on from its progress.
 * What it shows: the bytes Plan reads (up to the last cut), its scan rate on this machine, how many
 * invocations a plan takes at a budget, and that no invocation passes its budget by more than a chunk.
 */
import { performance } from 'node:perf_hooks';
import { planShards } from '../src/plan/shard-plan.js';

const CHUNK_BYTES = 1 << 20;

/** A block of CSV records (a quoted field with a comma in every tenth), repeated to make the object. */
function recordBlock() {
  const lines = [];
  for (let i = 0; i < 40_000; i++) lines.push(`p${i},${i % 10 === 0 ? '"Doe, Jane"' : `name ${i}`},${i % 997},user${i}@example.com,2026-11-27T00:00:00Z`);
  return Buffer.from(`${lines.join('\n')}\n`);
}

/**
 * The object from `from`: its header, then the block repeated, to `bytes` (a last partial record included).
 * @param {Buffer} header @param {Buffer} block @param {number} bytes @param {number} from
 */
async function* objectFrom(header, block, bytes, from) {
  let at = from;
  while (at < bytes) {
    const inBlock = at < header.length ? -1 : (at - header.length) % block.length;
    const piece = inBlock < 0 ? header.subarray(at) : block.subarray(inBlock, inBlock + Math.min(CHUNK_BYTES, block.length - inBlock));
    const chunk = piece.subarray(0, Math.min(piece.length, bytes - at));
    at += chunk.length;
    yield chunk;
  }
}

/**
 * Plans an object of `bytes` into `shards`, each invocation stopping past `budgetMs`.
 * @param {{ bytes: number, shards: number, budgetMs: number }} options
 */
export async function planLargeObject({ bytes, shards, budgetMs }) {
  const header = Buffer.from('id,name,balance,email,updated_at\n');
  const block = recordBlock();
  /** @type {import('../src/plan/shard-plan.js').PlanProgress | undefined} */
  let resume;
  let invocations = 0;
  let longestMs = 0;
  let read = 0;
  const started = performance.now();
  for (;;) {
    invocations++;
    const from = resume?.byte ?? 0;
    const begun = performance.now();
    const stopBy = begun + budgetMs;
    let last = from;
    const counted = (async function* () {
      for await (const chunk of objectFrom(header, block, bytes, from)) {
        last += chunk.length;
        yield chunk;
      }
    })();
    const result = await planShards(counted, { bytes, shards, delimiter: ',', where: 'bench', resume, pause: () => performance.now() > stopBy });
    longestMs = Math.max(longestMs, performance.now() - begun);
    read += last - from;
    if (!('paused' in result)) {
      const seconds = (performance.now() - started) / 1000;
      return { bytes, shards, invocations, seconds, longestMs, read, lastCut: result.shards.at(-1)?.start ?? 0, planned: result.shards.length, mbPerSecond: read / 1e6 / seconds };
    }
    resume = result.paused;
  }
}
