import { type AddressInfo, createServer, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import type { Pack, TelemetryInput } from '@vigia/core';
import { pino } from 'pino';
import { z } from 'zod';
import { distanceToSegmentM, type LatLon } from '../src/geo.js';
import { cityGraph } from '../src/network/cities.js';
import type { RoadClass } from '../src/network/types.js';

export interface Sample extends TelemetryInput {
  ts: string;
  speedKmh: number;
  headingDeg: number;
  accuracyM: number;
}

/** Records grouped per device, in time order. */
export function byDevice(records: readonly TelemetryInput[]): Map<string, Sample[]> {
  const out = new Map<string, Sample[]>();
  for (const r of records) {
    const list = out.get(r.deviceId) ?? [];
    list.push(r as Sample);
    out.set(r.deviceId, list);
  }
  for (const list of out.values()) list.sort((a, b) => Date.parse(a.ts) - Date.parse(b.ts));
  return out;
}

export function packOf(deviceId: string): Pack {
  if (deviceId.startsWith('SIM-DF-')) return 'df-taxi';
  if (deviceId.startsWith('SIM-BEL-')) return 'belem-taxi';
  return 'sp-fretamento';
}

interface IndexedSegment {
  a: LatLon;
  b: LatLon;
  roadClass: RoadClass;
}

/**
 * The segments of a city's road polylines in a grid of ~500 m cells, to find the roads near a
 * sample without scanning the whole city.
 */
export class RoadIndex {
  private readonly cells = new Map<string, IndexedSegment[]>();
  private static readonly CELL_DEG = 0.005;

  constructor(pack: Pack) {
    for (const { road, points } of cityGraph(pack).polylines) {
      for (let i = 1; i < points.length; i++) {
        const seg = { a: points[i - 1] as LatLon, b: points[i] as LatLon, roadClass: road.roadClass };
        const keys = new Set([this.key(seg.a), this.key(seg.b)]);
        for (const k of keys) {
          const list = this.cells.get(k) ?? [];
          list.push(seg);
          this.cells.set(k, list);
        }
      }
    }
  }

  /** Road segments within `radiusM` of p (radius up to a few hundred metres). */
  near(p: LatLon, radiusM: number): { distanceM: number; roadClass: RoadClass }[] {
    const out: { distanceM: number; roadClass: RoadClass }[] = [];
    const [ci, cj] = this.cell(p);
    for (let di = -1; di <= 1; di++) {
      for (let dj = -1; dj <= 1; dj++) {
        for (const seg of this.cells.get(`${ci + di}:${cj + dj}`) ?? []) {
          const d = distanceToSegmentM(p, seg.a, seg.b);
          if (d <= radiusM) out.push({ distanceM: d, roadClass: seg.roadClass });
        }
      }
    }
    return out;
  }

  private cell(p: LatLon): [number, number] {
    return [Math.floor(p.lat / RoadIndex.CELL_DEG), Math.floor(p.lon / RoadIndex.CELL_DEG)];
  }

  private key(p: LatLon): string {
    const [i, j] = this.cell(p);
    return `${i}:${j}`;
  }
}

/**
 * A TCP port free at the time of asking, for a system that must listen on a known port (a test
 * that restarts it on the same ports, or points devices at a gateway before it starts).
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * A scripted tracker server on loopback (the emulators' tests): `onConnection` gets each socket
 * and its number (from 1); `close` also destroys the connections still open, so a test never
 * waits for an emulated device to hang up.
 */
export async function scriptedTcpServer(
  onConnection: (socket: Socket, connection: number) => void,
): Promise<{ port: number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    onConnection(socket, ++connections);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Flush until the backlog is empty, letting backoffs pass (the pacer's clock is faked forward). */
export async function drain(uplink: { flush(): Promise<void> | undefined; pending: number }, clock: { t: number }) {
  for (let i = 0; i < 20 && uplink.pending > 0; i++) {
    await uplink.flush();
    clock.t += 120_000;
  }
}

/** `GET /v1/devices` as the simulator tests read it: which protocol and profile each device got. */
export const deviceListSchema = z.object({
  items: z.array(
    z.looseObject({ id: z.string(), protocol: z.string(), identifier: z.string(), profile: z.string().nullable() }),
  ),
});

/** A debug-level logger whose lines the test can read back (what the simulator reported). */
export function capturingLogger() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { log: pino({ level: 'debug' }, stream), lines };
}
