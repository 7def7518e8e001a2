/**
 * One COPY FROM STDIN on one connection of a Postgres server (pg-copy-streams), written to in
 * chunks with backpressure: a write waits while the server is behind, so generation never runs
 * ahead of loading by more than the stream's buffer.
 */
import pgCopyStreams from 'pg-copy-streams';
import type pg from 'pg';

const { from: copyFrom } = pgCopyStreams;

/** How much COPY text may wait in Node per stream before generation pauses. */
const STREAM_BUFFER_BYTES = 8 << 20;

export class CopyStream {
  private readonly stream: pgCopyStreams.CopyStreamQuery;
  private readonly finished: Promise<number>;
  private failure: Error | undefined;

  constructor(client: pg.ClientBase, table: string, columns: readonly string[], freeze: boolean) {
    const options = freeze ? ' with (freeze)' : '';
    this.stream = client.query(
      copyFrom(`copy ${table} (${columns.join(', ')}) from stdin${options}`, {
        highWaterMark: STREAM_BUFFER_BYTES,
      }),
    );
    this.finished = new Promise<number>((resolve, reject) => {
      this.stream.on('finish', () => resolve(this.stream.rowCount));
      this.stream.on('error', (error: Error) => {
        this.failure = error;
        reject(error);
      });
    });
    // Rejections are awaited in finish(); until then a failure is reported by write().
    this.finished.catch(() => undefined);
  }

  /** Resolves once the stream can take more: at once, or when the server has caught up. */
  async write(chunk: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    if (chunk.length === 0) return;
    if (!this.stream.write(chunk)) {
      await new Promise<void>((resolve, reject) => {
        const onDrain = () => {
          this.stream.off('error', onError);
          resolve();
        };
        const onError = (error: Error) => {
          this.stream.off('drain', onDrain);
          reject(error);
        };
        this.stream.once('drain', onDrain);
        this.stream.once('error', onError);
      });
    }
  }

  /** Ends the COPY; resolves with the rows the server took once they are committed. */
  async finish(): Promise<number> {
    this.stream.end();
    return this.finished;
  }

  /** Abandons the COPY (the server rolls it back). */
  abort(error: Error): void {
    this.stream.destroy(error);
  }
}
