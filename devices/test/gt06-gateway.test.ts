import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import type { TelemetryInput } from '@vigia/core';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Pipeline, startPipeline } from '../../ingest/test/gateways/support/pipeline.js';
import { GT06_PROTOCOL, readServerPacket } from '../src/emulators/gt06/gt06-codec.js';
import { Gt06Uplink } from '../src/emulators/gt06/gt06-uplink.js';
import { type Gt06Profile, loadEmulatorProfile } from '../src/emulators/profiles/emulator-profile.js';
import { emulatedImei } from '../src/emulators/teltonika/imei.js';
import { Fleet } from '../src/fleet/fleet.js';
import { buildRoster } from '../src/fleet/roster.js';

/**
 * The emulated GT06 trackers against the real gateway and PostgreSQL, through a proxy that loses
 * echoes: now and then it lets a position reach the gateway (which stores it) and cuts the
 * connection instead of passing the echo on, as a mobile network does. Every sample must end up
 * stored once, as the simulator produced it: the tracker re-sends what was not echoed, the
 * gateway recognises what it already has.
 */

/** Passes bytes both ways; cuts both connections instead of passing on every `cutEvery`-th position echo. */
async function echoLosingProxy(target: number, cutEvery: number) {
  const sockets = new Set<Socket>();
  let echoes = 0;
  let cuts = 0;
  const server: Server = createServer((device) => {
    const gateway = connect({ host: '127.0.0.1', port: target });
    for (const s of [device, gateway]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => {});
    }
    device.on('data', (chunk: Buffer) => gateway.write(chunk));
    device.on('close', () => gateway.destroy());
    gateway.on('close', () => device.destroy());
    let buf = Buffer.alloc(0);
    gateway.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      for (let p = readServerPacket(buf); p.kind !== 'incomplete'; p = readServerPacket(buf)) {
        const bytes = buf.subarray(0, p.bytes);
        buf = buf.subarray(p.bytes);
        const position =
          p.kind === 'packet' && p.protocol !== GT06_PROTOCOL.login && p.protocol !== GT06_PROTOCOL.heartbeat;
        if (position && ++echoes % cutEvery === 0) {
          cuts++;
          device.destroy();
          gateway.destroy();
          return;
        }
        device.write(bytes);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    get cuts() {
      return cuts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

describe('emulated GT06 trackers through the real gateway', () => {
  let pipeline: Pipeline;

  beforeAll(async () => {
    pipeline = await startPipeline();
  });

  afterAll(async () => {
    await pipeline?.close();
  });

  it('stores every sample of the simulated fleet once, as sent, though echoes are lost on the way', async () => {
    const proxy = await echoLosingProxy(pipeline.gateways.gt06Port, 23);
    // A DF taxi, a Belém taxi and an SP bus, ten minutes back, on a whole second (GT06 time).
    const start = Math.floor((Date.now() - 600_000) / 1000) * 1000;
    const roster = buildRoster(3, start);
    const fleet = new Fleet(roster, { seed: 'gt06-gateway', startMs: start, warmUpMs: 600_000 });
    const base = Date.now();
    const uplinks = new Map<string, { uplink: Gt06Uplink; deviceId: string; taxi: boolean; sent: TelemetryInput[] }>();
    for (const [i, entry] of roster.entries.entries()) {
      const imei = emulatedImei(7_000_000 + i);
      const taxi = entry.vehicle.pack !== 'sp-fretamento';
      const profile = taxi ? 'gt06-taxi' : 'gt06-default';
      const deviceId = `dev-gt06-${i}`;
      await pipeline.registerDevice({ id: deviceId, identifier: imei, protocol: 'gt06', profile });
      const uplink = new Gt06Uplink({
        host: '127.0.0.1',
        port: proxy.port,
        imei,
        profile: loadEmulatorProfile(profile) as Gt06Profile,
        log: pino({ level: 'silent' }),
        ackTimeoutMs: 2000,
        // The retry clock runs 20× fast: the backoff after a cut stays short.
        now: () => base + (Date.now() - base) * 20,
      });
      uplinks.set(entry.device.identifier, { uplink, deviceId, taxi, sent: [] });
    }
    // Four simulated minutes, sent as they are produced, tick by tick.
    for (let t = start; t < start + 240_000; t += 2000) {
      for (const sample of fleet.tick(t, 2000)) {
        const device = uplinks.get(sample.deviceId);
        if (!device) throw new Error(`no uplink for ${sample.deviceId}`);
        device.uplink.enqueue(sample);
        device.sent.push(sample);
      }
      await Promise.all([...uplinks.values()].map((d) => d.uplink.flush()));
    }
    const deadline = Date.now() + 20_000;
    while ([...uplinks.values()].some((d) => d.uplink.pending > 0) && Date.now() < deadline) {
      await Promise.all([...uplinks.values()].map((d) => d.uplink.flush()));
      await new Promise((r) => setTimeout(r, 20));
    }
    for (const { uplink } of uplinks.values()) await uplink.close();
    await proxy.close();

    let total = 0;
    let doors = 0;
    for (const { uplink, deviceId, taxi, sent } of uplinks.values()) {
      expect(uplink.pending, deviceId).toBe(0);
      expect(uplink.stats.dropped).toBe(0);
      const rows = await pipeline.rows(deviceId);
      expect(
        rows.map((r) => r.ts.getTime()),
        deviceId,
      ).toEqual(sent.map((s) => Date.parse(String(s.ts))));
      sent.forEach((s, i) => {
        const r = rows[i];
        const where = `${deviceId} ${String(s.ts)}`;
        // One GT06 unit is 1/1 800 000 of a degree; speed and course are whole numbers.
        expect(Math.abs((r?.lat ?? 0) - s.lat), where).toBeLessThan(3e-7);
        expect(Math.abs((r?.lon ?? 0) - s.lon), where).toBeLessThan(3e-7);
        expect(r?.speed_kmh, where).toBe(Math.round(s.speedKmh ?? 0));
        expect(r?.heading_deg, where).toBe(Math.round(s.headingDeg ?? 0) % 360);
        expect(r?.ignition, where).toBe(s.ignition ?? false);
        // The taxi's door raises alarm 0x14 while open; a closed door sends nothing (unknown).
        expect(r?.door_open, where).toBe(taxi && s.doorOpen === true ? true : null);
        if (r?.door_open) doors++;
      });
      total += rows.length;
    }
    const duplicates = await pipeline.gateways.metrics.value('duplicates', { protocol: 'gt06', transport: 'tcp' });
    console.log(
      `GT06 through the gateway: ${total} samples stored once as sent, ${doors} door alarms, ${proxy.cuts} echoes lost, ${duplicates} re-sends recognised as stored`,
    );
    expect(proxy.cuts).toBeGreaterThan(3);
    expect(duplicates).toBeGreaterThan(0);
    expect(await pipeline.gateways.metrics.value('stored', { protocol: 'gt06', transport: 'tcp' })).toBe(total);
  }, 60_000);
});
