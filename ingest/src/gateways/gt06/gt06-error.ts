/**
 * Why a GT06 packet was refused. `code` is stable (logs, metrics labels in lower case); `message`
 * says what exactly was wrong, for the person reading the log.
 */
export type Gt06ErrorCode =
  /** The stream lost its framing: no 78 78 / 79 79 where a packet must start. */
  | 'BAD_START_BITS'
  /** The declared length leaves no room for protocol number, serial and CRC, or is beyond any device. */
  | 'BAD_LENGTH'
  /** The CRC-ITU of the packet does not match its content: corrupted in transit. */
  | 'CRC_MISMATCH'
  /** The packet does not end in 0D 0A where its length says it ends. */
  | 'BAD_STOP_BITS'
  /** The content does not have the layout its protocol number announces (too short, bad BCD). */
  | 'MALFORMED_PACKET'
  /** A protocol number this gateway does not take (or one only a server sends, such as 0x80). */
  | 'UNSUPPORTED_PROTOCOL';

export class Gt06ProtocolError extends Error {
  constructor(
    readonly code: Gt06ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'Gt06ProtocolError';
  }
}
