import type { HolidayCalendar } from '../../../calendar/holiday-calendar.js';
import { localDateTime } from '../../../time/local-time.js';
import { perMinute } from '../../../time/per-minute.js';
import { bandeira2Rule } from '../../common/bandeira2-rule.js';
import { dfBandeira2Time } from '../bandeira2-hours.js';
import type { DfConfig } from '../config.js';
import { dfGroupPenalty } from '../penalty.js';

/** The clock's part of the decision, once per minute and calendar (time/per-minute.ts). */
const timeAtMinute = perMinute((ms: number, calendar: HolidayCalendar, _none: null) =>
  dfBandeira2Time(ms, localDateTime(ms, calendar.timeZone), calendar),
);

/**
 * DF_BANDEIRA2_MISUSE — Art. 45 III (Decreto 16.616/1995) and Art. 48 III: tariff 2 (km price +
 * 50 %) only a) 20:00–06:00 Monday to Friday, b) from 12:00 on Saturday, c) all day on Sundays
 * and holidays, d) on trips to or from the airport, e) on unpaved roads, f) in signed areas,
 * g) with more than 3 passengers not counting children under 7. Decided at trip end because
 * of d); a provisional suspected alert may be raised live. Evidence includes the overcharge: the
 * 50 % surcharge on the Bandeira I km price over the unjustified stretches.
 */
export const dfBandeira2MisuseRule = bandeira2Rule<DfConfig>({
  id: 'DF_BANDEIRA2_MISUSE',
  pack: 'df-taxi',
  legalBasis: ['Art. 45 III', 'Art. 48 III'],
  description: {
    pt: 'Uso da Bandeira II fora dos horários e condições permitidos.',
    en: 'Tariff 2 (Bandeira II) charged outside its permitted hours and conditions.',
  },
  penalty: (config) => dfGroupPenalty(config, 'DF_BANDEIRA2_MISUSE'),
  justify(ctx, config) {
    const time = timeAtMinute(ctx.ms, ctx.calendar, null);
    if (time.allowed) return { allowed: true, clause: time.clause, doubts: [] };
    const s = ctx.sample;
    const zones = ctx.registry.zonesAt(s.lat, s.lon, ctx.ms, ctx.pack, ['unpaved', 'bandeira2-signed']);
    const zone = zones[0];
    if (zone)
      return { allowed: true, clause: zone.zone.kind === 'unpaved' ? 'Art. 45 III e' : 'Art. 45 III f', doubts: [] };
    const doubts: string[] = [];
    const max = config.bandeira2.maxPassengersWithoutB2;
    // The door-gated count's upper bound: a flicker down with the doors closed removes nobody, and a
    // rise still settling (no door reading) already gets the benefit of the doubt.
    const passengers = ctx.occupancy.passengersAtMost;
    if (passengers === null) {
      doubts.push('passenger count unknown: more than 3 passengers (Art. 45 III g) cannot be excluded');
    } else if (passengers > max) {
      // With the children unknown, more than `max` people on board may justify tariff 2: benefit of the doubt.
      const adults = passengers - (s.childrenUnder7 ?? 0);
      if (adults > max || s.childrenUnder7 === null) return { allowed: true, clause: 'Art. 45 III g', doubts: [] };
    }
    if (time.uncertainDay && config.holidays.uncountedDayConfidence === 'suspected') {
      doubts.push(
        `${time.uncertainDay.name} (${time.uncertainDay.date}) is a ponto facultativo, not a counted holiday`,
      );
    }
    return { allowed: false, clause: null, doubts };
  },
  stretch: (config) => ({
    minSeconds: config.bandeira2.minStretchSeconds,
    minMeters: config.bandeira2.minStretchMetres,
  }),
  airport: (config) => ({ mode: config.bandeira2.airportCondition, marginM: config.bandeira2.airportMarginM }),
  provisionalAlerts: (config) => config.bandeira2.provisionalAlerts,
  surchargeCentsPerKm(ctx, config) {
    const ut = ctx.registry.unitValue('UT', 'df-taxi', ctx.local.date);
    if (!ut || config.tariff.kmB1Ut === null) return null;
    return config.tariff.kmB1Ut * ut.valueBrl * 100 * config.tariff.bandeira2Surcharge;
  },
});
