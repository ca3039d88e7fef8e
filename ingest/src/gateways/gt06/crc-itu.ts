/**
 * CRC-ITU as GT06 (Concox) computes it, i.e. CRC-16/X-25: polynomial 0x1021 reflected (0x8408),
 * initial value 0xFFFF, final XOR 0xFFFF. It covers a packet from the length byte(s) to the serial
 * number and travels big-endian before the stop bits.
 */
const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x8408 : c >>> 1;
    table[n] = c;
  }
  return table;
})();

export function crcItu(data: Uint8Array): number {
  let crc = 0xffff;
  for (const byte of data) crc = (crc >>> 8) ^ (TABLE[(crc ^ byte) & 0xff] as number);
  return ~crc & 0xffff;
}
