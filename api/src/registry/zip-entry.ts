import { AppError } from '@vigia/core';
import { type AsyncFlateStreamHandler, Unzip, type UnzipDecoder, UnzipInflate } from 'fflate';
import { type ImportLimits, importTooLarge } from './import-limits.js';

/**
 * One entry of a zip, inflated while the zip streams in (fflate's streaming `Unzip`, which reads
 * local headers in order and never needs the central directory, so the body is never held
 * whole). The entry's bytes are yielded as they come, and only as fast as the consumer pulls
 * them, so whoever reads them bounds the inflated size.
 *
 * A compressed slice can inflate about a thousandfold: the body is pushed in slices of
 * `SLICE_BYTES`, so one step inflates about a megabyte at most, however the zip was built.
 * Entries that are not wanted are skipped without being inflated (their bytes are dropped
 * as they pass). Only stored and deflated entries are read, as every GTFS producer writes.
 */
const SLICE_BYTES = 1024;

const ZIP_SIGNATURES = ['504b0304', '504b0506']; // a local file header; the end record of an empty zip

const END_RECORD_SIGNATURE = Buffer.from('504b0506', 'hex');
const MAX_END_RECORD_BYTES = 22 + 0xffff;

const malformed = (why: string) => new AppError('MALFORMED_ZIP', `The zip cannot be read: ${why}`, 400);

export async function* zipEntry(
  body: AsyncIterable<Buffer>,
  wanted: (name: string) => boolean,
  limits: ImportLimits,
  missing: () => AppError,
): AsyncGenerator<Uint8Array> {
  const inflated: Uint8Array[] = [];
  let failure: AppError | undefined;
  let entries = 0;
  let found = false;
  let complete = false;
  // Set by `onfile` just before `start()` builds the entry's decoder: whether to inflate it.
  let inflateNext = false;

  // Replaces fflate's deflate decoder so that a skipped entry is not inflated (fflate would
  // otherwise keep an unstarted entry's compressed bytes in memory until the end).
  class SelectiveInflate implements UnzipDecoder {
    static readonly compression = 8;
    ondata: AsyncFlateStreamHandler = () => {};
    private readonly inflate = inflateNext ? new UnzipInflate() : undefined;
    constructor() {
      if (this.inflate) this.inflate.ondata = (err, data, final) => this.ondata(err, data, final);
    }
    push(chunk: Uint8Array, final: boolean): void {
      if (this.inflate) this.inflate.push(chunk, final);
    }
  }

  const unzip = new Unzip((file) => {
    entries++;
    if (entries > limits.maxZipEntries) {
      failure ??= importTooLarge(limits, 'maxZipEntries');
      return;
    }
    if (file.compression !== 0 && file.compression !== 8) {
      failure ??= malformed(
        `${file.name} uses compression method ${file.compression}; only stored and deflated entries are read`,
      );
      return;
    }
    const take = !found && wanted(file.name);
    found ||= take;
    inflateNext = take;
    file.ondata = take
      ? (err, data, final) => {
          if (err) failure ??= malformed(err.message);
          else if (data.length > 0) inflated.push(data);
          if (final) complete = true;
        }
      : () => {};
    file.start();
  });
  unzip.register(SelectiveInflate);

  const push = (slice: Uint8Array, final: boolean) => {
    try {
      unzip.push(slice, final);
    } catch (err) {
      failure ??= malformed((err as Error).message);
    }
  };

  let head = Buffer.alloc(0);
  // The last bytes read: a zip ends with its end-of-central-directory record (22 bytes and a
  // comment of up to 64 KiB), which tells a zip without stops.txt from one cut short.
  let tail = Buffer.alloc(0);
  for await (const chunk of body) {
    tail = Buffer.concat([tail, chunk]).subarray(-MAX_END_RECORD_BYTES);
    if (head.length < 4) {
      head = Buffer.concat([head, chunk.subarray(0, 4 - head.length)]);
      if (head.length === 4 && !ZIP_SIGNATURES.includes(head.toString('hex'))) throw malformed('not a zip file');
    }
    for (let offset = 0; offset < chunk.length; offset += SLICE_BYTES) {
      push(chunk.subarray(offset, offset + SLICE_BYTES), false);
      if (failure) throw failure;
      while (inflated.length > 0) yield inflated.shift() as Uint8Array;
      // The rest of the zip is not needed (and its tail not checked): the route drops it.
      if (complete) return;
    }
  }
  if (head.length < 4) throw malformed('not a zip file');
  push(new Uint8Array(0), true);
  if (failure) throw failure;
  while (inflated.length > 0) yield inflated.shift() as Uint8Array;
  if (!found) throw tail.includes(END_RECORD_SIGNATURE) ? missing() : malformed('the zip ends early');
  if (!complete) throw malformed('the entry ends early');
}
