import type { HolidayCalendar } from '../../../calendar/holiday-calendar.js';
import { localDateTime } from '../../../time/local-time.js';
import { perMinute } from '../../../time/per-minute.js';
import { bandeira2Rule } from '../../common/bandeira2-rule.js';
import { type BelemPeriodSettings, belemBandeira2Time } from '../bandeira2-periods.js';
import type { BelemConfig } from '../config.js';
import { belemGroupPenalty } from '../penalty.js';

/** The clock's part of the decision, once per minute, calendar and settings (time/per-minute.ts). */
const timeAtMinute = perMinute((ms: number, calendar: HolidayCalendar, settings: BelemPeriodSettings) =>
  belemBandeira2Time(ms, localDateTime(ms, calendar.timeZone), calendar, settings),
);

/**
 * BEL_BANDEIRA2_MISUSE — Art. 35 I (tariff 2 only 20:00–06:00 on working days; from 12:00 on
 * Saturday to 06:00 on Monday; on holidays until 06:00 of the next working day; any time in
 * December) and Art. 58 item 3.4 ("utilizar a Bandeira II fora do horário permitido", group III,
 * 40 IPCA-E). Only the clock matters in Belém, so the violation is raised live.
 */
export const belemBandeira2MisuseRule = bandeira2Rule<BelemConfig>({
  id: 'BEL_BANDEIRA2_MISUSE',
  pack: 'belem-taxi',
  legalBasis: ['Art. 35 I', 'Art. 58 item 3.4'],
  description: {
    pt: 'Uso da Bandeira 2 fora do horário permitido.',
    en: 'Tariff 2 (Bandeira 2) charged outside the permitted periods.',
  },
  penalty: () => belemGroupPenalty('III', '3.4'),
  justify(ctx, config) {
    const t = timeAtMinute(ctx.ms, ctx.calendar, config.bandeira2);
    if (t.allowed) return { allowed: true, clause: t.clause, doubts: [] };
    const doubts =
      t.uncertainDay && config.holidays.uncountedDayConfidence === 'suspected'
        ? [`${t.uncertainDay.name} (${t.uncertainDay.date}) is a ponto facultativo, not a counted holiday`]
        : [];
    return { allowed: false, clause: null, doubts };
  },
  stretch: (config) => ({
    minSeconds: config.bandeira2.minStretchSeconds,
    minMeters: config.bandeira2.minStretchMetres,
  }),
  airport: () => null,
  provisionalAlerts: () => true,
  surchargeCentsPerKm: (_ctx, config) =>
    config.tariff.kmB1Cents === null || config.tariff.kmB2Cents === null
      ? null
      : config.tariff.kmB2Cents - config.tariff.kmB1Cents,
});
