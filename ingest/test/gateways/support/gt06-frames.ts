import { encodeGt06Packet } from '../../../src/gateways/index.js';

/**
 * GT06 packets for tests: the device's side is the source's builder (shared with the benchmark),
 * written from the protocol's layout, not from the gateway's decoder; the answers the server must
 * give are built here.
 */
export {
  alarm16,
  type Fix,
  gpsBlock,
  heartbeat,
  imeiBcd,
  location12,
  location22,
  login,
} from '../../../src/gateways/gt06/gt06-device-packets.js';

/** What the server must answer to a packet: its protocol number and serial echoed. */
export const answerTo = (protocol: number, serial: number, long = false) =>
  encodeGt06Packet(protocol, Buffer.alloc(0), serial, long);
