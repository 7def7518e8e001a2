/**
 * A run's body, stored as it arrives (src/db/repositories/feed-runs.ts) in chunks of about a
 * megabyte, never whole in memory: a 500 MB feed costs one chunk's memory. A body past its
 * bound, or one that stops arriving, ends the upload and what was stored of it is removed.
 */
import type { Kysely } from 'kysely';
import { appendFeedRunBody } from '../../db/repositories/feed-runs.ts';
import type { Database } from '../../db/types.ts';

const CHUNK_BYTES = 1024 * 1024;

/** Why an upload ended before its body did. */
export class BodyRefused extends Error {
  constructor(
    readonly status: 400 | 408 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'BodyRefused';
  }
}

export interface BodyBounds {
  maxBytes: number;
  /** Longest pause between two pieces of the body. */
  stallMs: number;
}

/** Stores the body under the run; returns its size in bytes. */
export async function receiveBody(
  db: Kysely<Database>,
  runId: string,
  body: ReadableStream<Uint8Array> | null,
  bounds: BodyBounds,
): Promise<number> {
  let sequence = 0;
  return readPieces(body, bounds, CHUNK_BYTES, (chunk) =>
    appendFeedRunBody(db, runId, sequence++, chunk),
  );
}

/** A small body (a push) whole, within the same bounds. */
export async function readBody(
  body: ReadableStream<Uint8Array> | null,
  bounds: BodyBounds,
): Promise<Buffer> {
  const pieces: Uint8Array[] = [];
  await readPieces(body, bounds, Infinity, async (piece) => {
    pieces.push(piece);
  });
  return Buffer.concat(pieces);
}

/**
 * Reads the body, handing on pieces of at least `pieceBytes` (the last one smaller) and
 * refusing it past `maxBytes` or a stall; returns its size.
 */
async function readPieces(
  body: ReadableStream<Uint8Array> | null,
  bounds: BodyBounds,
  pieceBytes: number,
  take: (piece: Uint8Array) => Promise<void>,
): Promise<number> {
  if (body === null) return 0;
  const reader = body.getReader();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  let total = 0;
  const flush = async () => {
    if (pendingBytes === 0) return;
    const piece = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    await take(piece);
  };
  try {
    for (;;) {
      const { done, value } = await readWithin(reader, bounds.stallMs);
      if (done) break;
      total += value.byteLength;
      if (total > bounds.maxBytes) {
        throw new BodyRefused(
          413,
          `the body is larger than ${bounds.maxBytes} bytes: nothing applied`,
        );
      }
      pending.push(value);
      pendingBytes += value.byteLength;
      if (pendingBytes >= pieceBytes) await flush();
    }
    await flush();
    return total;
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
}

/** A body that fails as it is read (the client went away mid-upload): its upload ends. */
function unreadable(error: unknown): never {
  throw new BodyRefused(400, `the body could not be read: ${(error as Error).message}`);
}

/** The next piece of the body, or a 408 when none comes within `stallMs`. */
async function readWithin(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  stallMs: number,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  let timer: NodeJS.Timeout | undefined;
  const stalled = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new BodyRefused(
            408,
            `the body stopped arriving for ${stallMs / 1000} s: nothing applied`,
          ),
        ),
      stallMs,
    );
  });
  try {
    return await Promise.race([reader.read().catch(unreadable), stalled]);
  } finally {
    clearTimeout(timer);
  }
}
