import type { Readable } from 'node:stream';
import { AppError } from '@vigia/core';
import { type ImportLimits, importTooLarge } from './import-limits.js';

/**
 * An import body as a stream: the import routes' content-type parsers hand the handler this
 * instead of a buffer. Bytes are counted as they arrive; past `IMPORT_MAX_BODY_BYTES` (or with
 * a Content-Length above it, before anything is read) reading fails with 413.
 */
export class ImportUpload {
  private received = 0;

  constructor(
    readonly format: 'zip' | 'csv',
    private readonly stream: Readable,
    private readonly contentLength: string | undefined,
    private readonly limits: ImportLimits,
  ) {}

  async *chunks(): AsyncGenerator<Buffer> {
    if (this.contentLength !== undefined && Number(this.contentLength) > this.limits.maxBodyBytes) {
      throw importTooLarge(this.limits, 'maxBodyBytes');
    }
    // Not destroyed when the reader stops early: destroying the request destroys the socket,
    // and the 413 could not be sent on it (`discardRest` deals with the rest).
    try {
      for await (const chunk of this.stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
        this.received += chunk.length;
        if (this.received > this.limits.maxBodyBytes) throw importTooLarge(this.limits, 'maxBodyBytes');
        yield chunk;
      }
    } catch (err) {
      if (err instanceof AppError) throw err;
      // The client went away mid-upload: nobody reads this answer, but it is no server fault.
      throw new AppError('REQUEST_ABORTED', `The request body could not be read: ${(err as Error).message}`, 400);
    }
  }

  /**
   * Once the handler is done, early or not: reads and drops what the client is still sending,
   * so that it reads the answer (a client whose upload is cut off often never sees it), but
   * closes the connection once the body passes `IMPORT_MAX_BODY_BYTES` in all.
   */
  discardRest(): void {
    const stream = this.stream;
    if (stream.readableEnded || stream.destroyed) return;
    stream.on('error', () => {});
    stream.on('data', (chunk: Buffer) => {
      this.received += chunk.length;
      if (this.received > this.limits.maxBodyBytes) stream.destroy();
    });
    stream.resume();
  }
}
