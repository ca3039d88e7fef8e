/**
 * The benchmark's TCP trackers: Teltonika (Codec 8 Extended) and GT06 (Concox) fleets, every
 * device connected at once on a raw socket, each sending its packets and waiting for the ACKs
 * (which the gateways send only once the records are durable). Raw sockets cost the bench little,
 * so these run in the bench's own process, which is not the ingest's.
 */
import { connect } from 'node:net';
import type pg from 'pg';
import { location22, login } from '../gateways/gt06/gt06-device-packets.js';
import { encodeImeiHandshake, encodeTcpFrame } from '../gateways/teltonika/avl-encoder.js';
import { type AvlRecord, CODEC_8_EXTENDED } from '../gateways/teltonika/avl-record.js';
import { type LoadOutcome, percentiles } from './scenario-measure.js';

/** A fleet of trackers registered for one protocol gateway, each in a vehicle of its own. */
export interface TrackerFleet {
  protocol: 'teltonika' | 'gt06';
  devices: number;
  /**
   * How device `n`'s names are made: registry ids `<registry>v<n>` (vehicle) and `<registry>d<n>`
   * (device), plate `<plate>` and `n` on 4 digits, IMEI `<imei>` and `n` on 13 digits.
   */
  prefixes: { registry: string; plate: string; imei: string };
  vehicle: { pack: string; serviceType: string; capacity: number };
}

/** Buses on Teltonika trackers, taxis on GT06 ones, `devices` of each. */
export function trackerFleet(protocol: TrackerFleet['protocol'], devices: number): TrackerFleet {
  return protocol === 'teltonika'
    ? {
        protocol,
        devices,
        prefixes: { registry: 't', plate: 'TLT', imei: '35' },
        vehicle: { pack: 'sp-fretamento', serviceType: 'fretamento-continuo', capacity: 44 },
      }
    : {
        protocol,
        devices,
        prefixes: { registry: 'g', plate: 'GTS', imei: '86' },
        vehicle: { pack: 'df-taxi', serviceType: 'taxi', capacity: 4 },
      };
}

const imeiOf = (fleet: TrackerFleet, d: number) => `${fleet.prefixes.imei}${String(d).padStart(13, '0')}`;

/** Registers `fleet`'s vehicles (of the bench's operator) and devices, so its records are stored and judged. */
export async function registerFleet(db: pg.Client, fleet: TrackerFleet): Promise<void> {
  const { prefixes, devices } = fleet;
  await db.query(
    `INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id)
     SELECT $2::text || 'v' || d, $3::text || lpad(d::text, 4, '0'), $4::text, $5::text, $6::int, 'bench'
     FROM generate_series(0, $1::int - 1) d`,
    [devices, prefixes.registry, prefixes.plate, fleet.vehicle.pack, fleet.vehicle.serviceType, fleet.vehicle.capacity],
  );
  await db.query(
    `INSERT INTO devices (id, vehicle_id, identifier, protocol, token_hash)
     SELECT $2::text || 'd' || d, $2::text || 'v' || d, $3::text || lpad(d::text, 13, '0'), $4::text, md5(random()::text)
     FROM generate_series(0, $1::int - 1) d`,
    [devices, prefixes.registry, prefixes.imei, fleet.protocol],
  );
}

/** One benchmark device's side of its protocol: what it says first, and how it reads the gateway's answers. */
interface BenchDevice {
  greeting: Buffer;
  /**
   * Reads one answer at the start of `received`: undefined while it is incomplete; otherwise the
   * bytes it took, what to send next, and, once the device is through, the records acknowledged.
   */
  answer(received: Buffer): { consumed: number; send?: Buffer; done?: number } | undefined;
}

/**
 * Runs `device` against the gateway on `port` until it is through; resolves with the records
 * acknowledged. Pushes to `roundTrips` the ms from each packet (or window) sent to the answer
 * that lets the device go on: what a tracker waits for before it may drop its copy.
 */
function runBenchDevice(port: number, name: string, device: BenchDevice, roundTrips: number[]): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    let sentAt: number | undefined;
    socket.setTimeout(60_000, () => socket.destroy(new Error(`${name} timed out`)));
    socket.on('error', reject);
    socket.on('connect', () => socket.write(device.greeting));
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      try {
        for (let step = device.answer(buffer); step; step = device.answer(buffer)) {
          buffer = buffer.subarray(step.consumed);
          if ((step.send || step.done !== undefined) && sentAt !== undefined)
            roundTrips.push(performance.now() - sentAt);
          if (step.send) {
            sentAt = performance.now();
            socket.write(step.send);
          }
          if (step.done !== undefined) {
            socket.end();
            resolve(step.done);
            return;
          }
        }
      } catch (err) {
        socket.destroy();
        reject(err);
      }
    });
  });
}

/** All of `fleet`'s devices at once against `port`; `sent` is what they sent, checked against their ACKs. */
async function runFleet(
  port: number,
  fleet: TrackerFleet,
  recordsPerDevice: number,
  device: (d: number) => BenchDevice,
  begin: () => Promise<void>,
): Promise<LoadOutcome> {
  const roundTrips: number[] = [];
  await begin();
  const runs = Array.from({ length: fleet.devices }, (_, d) =>
    runBenchDevice(port, `${fleet.protocol} device ${d}`, device(d), roundTrips),
  );
  const acked = (await Promise.all(runs)).reduce((a, b) => a + b, 0);
  const sent = fleet.devices * recordsPerDevice;
  if (acked !== sent) console.warn(`${fleet.protocol}: ${acked} records acknowledged of ${sent} sent`);
  const latencyMs = percentiles(roundTrips);
  return { sent, ...(latencyMs ? { latencyMs } : {}) };
}

/** Shape of the Teltonika load: each device sends this many packets of this many records. */
export const TELTONIKA_LOAD = { packets: 10, perPacket: 10 };

/**
 * Teltonika Codec 8 Extended over TCP: every device connected at once, each sending its packets
 * one at a time and waiting for each packet's ACK.
 */
export function teltonikaLoad(
  port: number,
  fleet: TrackerFleet,
  dayStartMs: number,
): (begin: () => Promise<void>) => Promise<LoadOutcome> {
  const { packets, perPacket } = TELTONIKA_LOAD;
  const record = (d: number, k: number): AvlRecord => ({
    timestampMs: dayStartMs + k * 1000,
    priority: 0,
    gps: {
      longitude: -46.63 + d * 1e-4,
      latitude: -23.55 - k * 1e-5,
      altitudeM: 760,
      angleDeg: 180,
      satellites: 9,
      speedKmh: 40,
    },
    eventIoId: 0,
    io: [{ id: 239, kind: 'int', bytes: 1, value: 1n }],
  });
  const device = (d: number): BenchDevice => {
    let handshaken = false;
    let sent = 0;
    let acked = 0;
    const nextPacket = () => {
      const k = sent++;
      return encodeTcpFrame(
        CODEC_8_EXTENDED,
        Array.from({ length: perPacket }, (_, j) => record(d, k * perPacket + j)),
      );
    };
    return {
      greeting: encodeImeiHandshake(imeiOf(fleet, d)),
      answer(received) {
        if (!handshaken) {
          if (received.length < 1) return undefined;
          if (received[0] !== 1) throw new Error(`device ${d} refused`);
          handshaken = true;
          return { consumed: 1, send: nextPacket() };
        }
        if (received.length < 4) return undefined;
        acked += received.readUInt32BE(0);
        return sent < packets ? { consumed: 4, send: nextPacket() } : { consumed: 4, done: acked };
      },
    };
  };
  return (begin) => runFleet(port, fleet, packets * perPacket, device, begin);
}

/** Shape of the GT06 load: each device sends this many windows of this many packets (one record each). */
export const GT06_LOAD = { windows: 10, perWindow: 10 };

/**
 * GT06 over TCP: every device connected at once, each logging in, then sending its positions
 * (0x22) in windows of packets and waiting for their serial echoes.
 */
export function gt06Load(
  port: number,
  fleet: TrackerFleet,
  dayStartMs: number,
): (begin: () => Promise<void>) => Promise<LoadOutcome> {
  const { windows, perWindow } = GT06_LOAD;
  const ANSWER = 10;
  const device = (d: number): BenchDevice => {
    let answers = 0;
    let sent = 0;
    const nextWindow = () => {
      const packets: Buffer[] = [];
      for (let j = 0; j < perWindow; j++, sent++) {
        const fix = {
          clockMs: dayStartMs + sent * 1000,
          lat: -15.79 - sent * 1e-5,
          lon: -47.88 + d * 1e-4,
          speedKmh: 40,
          course: 180,
        };
        packets.push(location22(fix, true, (sent + 1) & 0xffff));
      }
      return Buffer.concat(packets);
    };
    return {
      greeting: login(imeiOf(fleet, d), 0),
      answer(received) {
        if (received.length < ANSWER) return undefined;
        answers++;
        // The login's answer, then each window's last answer opens the next window.
        if (answers !== 1 && (answers - 1) % perWindow !== 0) return { consumed: ANSWER };
        return sent < windows * perWindow
          ? { consumed: ANSWER, send: nextWindow() }
          : { consumed: ANSWER, done: answers - 1 };
      },
    };
  };
  return (begin) => runFleet(port, fleet, windows * perWindow, device, begin);
}
