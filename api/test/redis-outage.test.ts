import { randomBytes } from 'node:crypto';
import { type BusEvent, type BusMessage, type FleetUpdate, RedisBus } from '@vigia/core';
import { TEST_REDIS_URL } from '@vigia/db/testing';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapterRedisClients } from '../src/live/adapter-redis.js';
import { positionAtSecond } from './fleet-support.js';
import { waitFor } from './support.js';
import { TcpProxy } from './tcp-proxy.js';

/**
 * Redis away while the API starts, and still away when it stops: the CI run that found this saw
 * the Socket.IO adapter's queued subscriptions reject unhandled when the hub closed (Node ends a
 * process on an unhandled rejection), and with ioredis' default retry limit a subscription made
 * during an outage of more than 20 reconnections is dropped for good. Reconnections are 10 ms
 * apart here, so that limit is passed in a second instead of a minute.
 */
describe('Redis connections across an outage', () => {
  const quick = { retryStrategy: () => 10 };
  const log = pino({ level: 'silent' });
  let redis: TcpProxy;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeEach(async () => {
    const { hostname, port } = new URL(TEST_REDIS_URL);
    redis = new TcpProxy(hostname, Number(port));
    await redis.start();
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(async () => {
    process.off('unhandledRejection', onUnhandled);
    await redis.stop();
  });

  const proxied = () => `redis://127.0.0.1:${redis.port}`;
  /** Lets a turn of the event loop pass, so that a rejection nobody handles is reported. */
  const settle = () => new Promise((r) => setTimeout(r, 50));

  it('keeps the adapter’s subscription through 30 refused reconnections, fails a publish at once, and closes without an unhandled rejection', async () => {
    redis.cut();
    const lines: { code?: string; command?: string }[] = [];
    const recording = pino({ level: 'warn' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const { pub, sub } = adapterRedisClients(proxied(), recording, quick);
    try {
      const channel = `vigia-test-${randomBytes(4).toString('hex')}`;
      const subscribed = sub.subscribe(channel);
      await waitFor('30 refused reconnections', () => redis.refused >= 2 * 30);
      // Nothing queued on the publisher: it fails now, not when Redis comes back.
      await expect(pub.publish(channel, 'during the outage')).rejects.toThrow(/enableOfflineQueue/);
      redis.restore();
      await expect(subscribed).resolves.toBe(1);
      const heard = new Promise<string>((resolve) => sub.on('message', (_c: string, m: string) => resolve(m)));
      await waitFor('the publisher to reconnect', () => pub.status === 'ready');
      await pub.publish(channel, 'after the outage');
      expect(await heard).toBe('after the outage');

      // Away again, with a subscription queued and a publish the adapter will not await.
      redis.cut();
      await waitFor('the subscriber to see the cut', () => sub.status !== 'ready');
      void sub.subscribe(`${channel}-2`);
      void pub.publish(channel, 'unawaited');
    } finally {
      pub.disconnect();
      sub.disconnect();
    }
    await settle();
    expect(unhandled).toEqual([]);
    // The adapter's failed commands are reported; ioredis' handshake (CLIENT SETINFO, refused by
    // Redis before 7.2) is not: it fails on every connection and ioredis itself ignores it.
    const failed = lines.filter((l) => l.code === 'LIVE_ADAPTER_COMMAND_FAILED').map((l) => l.command);
    expect(failed).toContain('publish');
    expect(failed).not.toContain('client');
  });

  it('delivers bus messages to a subscriber that subscribed while Redis was away', async () => {
    redis.cut();
    const prefix = `vigia-test-${randomBytes(4).toString('hex')}`;
    const bus = new RedisBus(proxied(), prefix, log, quick);
    const received: BusEvent[] = [];
    bus.subscribe((m) => received.push(m));
    const direct = new Redis(TEST_REDIS_URL);
    try {
      await waitFor('30 refused reconnections', () => redis.refused >= 2 * 30);
      redis.restore();
      const message: BusMessage = { type: 'registry-changed', collection: 'stops' };
      // Until the subscription is through nobody hears the channel: publish until the bus does.
      await waitFor('the bus to hear a message published after the outage', async () => {
        await direct.publish(`${prefix}:bus`, JSON.stringify(message));
        return received.some((m) => m.type !== 'bus-resumed');
      });
      // What was published before the subscription went through is lost: the subscriber is told,
      // before the first message it hears.
      expect(received[0]).toEqual({ type: 'bus-resumed' });
      expect(received.find((m) => m.type !== 'bus-resumed')).toEqual(message);
    } finally {
      direct.disconnect();
      await bus.close();
    }
    await settle();
    expect(unhandled).toEqual([]);
  });

  it('re-publishes the newest position of each vehicle it failed to publish, once it reconnects', async () => {
    const prefix = `vigia-test-${randomBytes(4).toString('hex')}`;
    const lines: { code?: string }[] = [];
    const recording = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const publisher = new RedisBus(proxied(), prefix, recording, quick);
    // Another process, which never loses Redis: it hears only what is published.
    const other = new RedisBus(TEST_REDIS_URL, prefix, log, quick);
    const heard: FleetUpdate[] = [];
    other.subscribe((m) => {
      if (m.type === 'fleet') heard.push(...m.updates);
    });
    const at = positionAtSecond;
    try {
      await waitFor('the publisher to connect', () => publisher.ping());
      await waitFor('the other process to hear the publisher', async () => {
        await publisher.publish({ type: 'fleet', updates: [at('v-ready', 0)] });
        return heard.length > 0;
      });
      // Only the outage's positions from here on: a probe published twice may still arrive.
      const ofOutage = () => heard.filter((u) => u.vehicleId !== 'v-ready');
      redis.cut();
      await waitFor('the publisher to lose Redis', async () => {
        try {
          await publisher.publish({ type: 'fleet', updates: [at('v1', 1), at('v2', 1)] });
          return false;
        } catch {
          return true;
        }
      });
      // Later positions of v1 replace its earlier one; an older one arriving late does not.
      await expect(publisher.publish({ type: 'fleet', updates: [at('v1', 3)] })).rejects.toThrow();
      await expect(publisher.publish({ type: 'fleet', updates: [at('v1', 2), at('v3', 2)] })).rejects.toThrow();
      expect(ofOutage()).toEqual([]);

      redis.restore();
      await waitFor('the owed positions to be published', () => lines.some((l) => l.code === 'BUS_OWED_PUBLISHED'));
      await waitFor('the other process to hear them', () => ofOutage().length >= 3);
      expect(
        ofOutage()
          .map((u) => [u.vehicleId, u.ts])
          .sort(),
      ).toEqual([at('v1', 3), at('v2', 1), at('v3', 2)].map((u) => [u.vehicleId, u.ts]).sort());
    } finally {
      await publisher.close();
      await other.close();
    }
    await settle();
    expect(unhandled).toEqual([]);
  });

  it('tells its subscribers when it is subscribed again after losing Redis, and no other process can tell them', async () => {
    const prefix = `vigia-test-${randomBytes(4).toString('hex')}`;
    const lines: { code?: string }[] = [];
    const recording = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
    const bus = new RedisBus(proxied(), prefix, recording, quick);
    const received: BusEvent[] = [];
    bus.subscribe((m) => received.push(m));
    const direct = new Redis(TEST_REDIS_URL);
    const channel = `${prefix}:bus`;
    const heard = (m: BusMessage) => received.some((r) => JSON.stringify(r) === JSON.stringify(m));
    try {
      const before: BusMessage = { type: 'registry-changed', collection: 'users' };
      await waitFor('the bus to hear a message', async () => {
        await direct.publish(channel, JSON.stringify(before));
        return heard(before);
      });
      // Connected from the start: nothing was missed, nothing to make up.
      expect(received.filter((m) => m.type === 'bus-resumed')).toEqual([]);

      // A message on the channel that claims the signal is not a message: dropped, not delivered.
      await direct.publish(channel, JSON.stringify({ type: 'bus-resumed' }));
      await waitFor('the forged signal to be dropped', () => lines.some((l) => l.code === 'BUS_BAD_MESSAGE'));
      expect(received.filter((m) => m.type === 'bus-resumed')).toEqual([]);

      redis.cut();
      // Published while this subscriber is cut off: lost for it.
      await direct.publish(channel, JSON.stringify({ type: 'registry-changed', collection: 'vehicles' }));
      await waitFor('reconnections refused', () => redis.refused >= 2);
      redis.restore();
      await waitFor('the bus to resume', () => received.some((m) => m.type === 'bus-resumed'));
      expect(received.filter((m) => m.type === 'bus-resumed')).toHaveLength(1);
      expect(heard({ type: 'registry-changed', collection: 'vehicles' })).toBe(false);
      // Resumed means subscribed: a message published now is heard without retrying.
      const after: BusMessage = { type: 'registry-changed', collection: 'stands' };
      await direct.publish(channel, JSON.stringify(after));
      await waitFor('the bus to hear a message after resuming', () => heard(after));
      expect(lines.filter((l) => l.code === 'BUS_RESUMED')).toHaveLength(1);
    } finally {
      direct.disconnect();
      await bus.close();
    }
    await settle();
    expect(unhandled).toEqual([]);
  });
});
