import { fine } from '../../common/penalty-helpers.js';
import { round } from '../../common/round.js';
import { sustainedRule } from '../../common/sustained-rule.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';

/**
 * FRET_TACHOGRAPH_MISSING — Art. 14 (vehicles must carry a tachograph) and Art. 25 IV (missing or
 * defective mandatory equipment, 20 ORTN): ≥ 10 min of driving with no tachograph reading (no
 * speed, no driver card). Confirmed only when the registry says the tracker reads the
 * tachograph; otherwise the data may be missing because the device cannot read it (suspected).
 */
export const tachographMissingRule = sustainedRule<null, SpConfig, SpContext>({
  id: 'FRET_TACHOGRAPH_MISSING',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 14', 'Art. 25 IV'],
  description: {
    pt: 'Veículo em movimento sem dados do tacógrafo.',
    en: 'Vehicle driving with no tachograph data.',
  },
  penalty: () => fine('ORTN', 20, 'Art. 25 IV'),
  observe(ctx, config) {
    const s = ctx.sample;
    if (s.tachoSpeedKmh !== null || s.tachoDriverId !== null) return null;
    const linked = ctx.vehicle?.tachographLinked ?? false;
    if (!linked && !config.tachograph.flagUnlinkedDevices) return null;
    return { suspected: !linked, fold: () => null };
  },
  qualifies: (run, config) => run.movingS >= config.tachograph.missingMinMovingSeconds,
  measured: (run, config) => ({
    movingSecondsWithoutTachograph: round(run.movingS),
    durationSeconds: round(run.durationS),
    distanceM: Math.round(run.distanceM),
    minMovingSeconds: config.tachograph.missingMinMovingSeconds,
    trackerReadsTachograph: !run.suspected,
  }),
});

interface MismatchExtra {
  readonly gpsSum: number;
  readonly tachoSum: number;
  readonly samples: number;
  readonly maxDeviation: number;
}

/**
 * FRET_TACHOGRAPH_MISMATCH — Art. 26 II (tampering with the tachograph, 25 ORTN if confirmed):
 * during steady driving (GPS ≥ 20 km/h, changing ≤ 10 km/h between samples) the tachograph
 * speed differs from the GPS speed by more than 15 % for ≥ 60 s. Never more than a suspicion —
 * a calibration fault looks the same — so always `suspected`, for human review.
 */
export const tachographMismatchRule = sustainedRule<MismatchExtra, SpConfig, SpContext>({
  id: 'FRET_TACHOGRAPH_MISMATCH',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 26 II'],
  description: {
    pt: 'Velocidade do tacógrafo diverge da velocidade GPS: possível adulteração do tacógrafo.',
    en: 'Tachograph speed disagrees with GPS speed: possible tachograph tampering.',
  },
  penalty: () => fine('ORTN', 25, 'Art. 26 II'),
  observe(ctx, config) {
    const gps = ctx.sample.speedKmh;
    const tacho = ctx.sample.tachoSpeedKmh;
    const prevGps = ctx.prev?.speedKmh ?? null;
    const t = config.tachograph;
    if (gps === null || tacho === null || prevGps === null) return null;
    if (gps < t.steadyMinSpeedKmh || Math.abs(gps - prevGps) > t.steadyMaxDeltaKmh) return null;
    const deviation = Math.abs(tacho - gps) / gps;
    if (deviation <= t.mismatchFraction) return null;
    return {
      suspected: true,
      fold: (prev) => ({
        gpsSum: (prev?.gpsSum ?? 0) + gps,
        tachoSum: (prev?.tachoSum ?? 0) + tacho,
        samples: (prev?.samples ?? 0) + 1,
        maxDeviation: Math.max(prev?.maxDeviation ?? 0, deviation),
      }),
    };
  },
  qualifies: (run, config) => run.durationS >= config.tachograph.mismatchMinSeconds,
  measured: (run, config) => ({
    meanGpsSpeedKmh: round(run.extra.gpsSum / run.extra.samples),
    meanTachographSpeedKmh: round(run.extra.tachoSum / run.extra.samples),
    maxDeviationFraction: round(run.extra.maxDeviation, 3),
    thresholdFraction: config.tachograph.mismatchFraction,
    durationSeconds: round(run.durationS),
    minSeconds: config.tachograph.mismatchMinSeconds,
  }),
});
