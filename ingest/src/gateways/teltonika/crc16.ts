/**
 * CRC-16/IBM (also called CRC-16/ARC): polynomial 0x8005 reflected (0xA001), initial value 0, no
 * final XOR. Teltonika computes it over a TCP AVL packet from the codec id to the second record
 * count and sends it in the last 4 bytes of the frame (the upper two bytes zero).
 */
const TABLE = (() => {
  const table = new Uint16Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xa001 : c >>> 1;
    table[n] = c;
  }
  return table;
})();

export function crc16Ibm(data: Uint8Array): number {
  let crc = 0;
  for (const byte of data) crc = (crc >>> 8) ^ (TABLE[(crc ^ byte) & 0xff] as number);
  return crc;
}
