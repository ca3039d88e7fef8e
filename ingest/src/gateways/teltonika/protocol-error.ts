/**
 * Why a Teltonika frame or handshake was refused. `code` is stable (logs, metrics labels in lower
 * case); `message` says what exactly was wrong, for the person reading the log.
 */
export type TeltonikaErrorCode =
  /** The CRC-16 of the packet does not match its content: corrupted in transit. */
  | 'CRC_MISMATCH'
  /** The structure is inconsistent: counts that disagree, elements running past the end. */
  | 'MALFORMED_PACKET'
  /** A codec this gateway does not take (Codec 12/13/14 command frames, unknown ids). */
  | 'UNSUPPORTED_CODEC'
  /** The stream lost its framing: no zero preamble where a packet must start. */
  | 'BAD_PREAMBLE'
  /** The declared length is beyond what any device sends. */
  | 'FRAME_TOO_LARGE'
  /** The opening IMEI message is not a 2-byte length and 15 ASCII digits. */
  | 'BAD_HANDSHAKE';

export class TeltonikaProtocolError extends Error {
  constructor(
    readonly code: TeltonikaErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'TeltonikaProtocolError';
  }
}
