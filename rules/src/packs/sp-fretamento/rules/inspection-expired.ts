import { daysBetween } from '../../../time/local-time.js';
import { type RegistryBreach, registryStateRule } from '../../common/daily-registry-rule.js';
import { fine } from '../../common/penalty-helpers.js';
import type { SpConfig } from '../config.js';
import type { SpContext } from '../context.js';
import { inspectionDue } from './vehicle-age.js';

/**
 * FRET_INSPECTION_EXPIRED — Art. 17 (periodic *vistoria*: every 18 months up to 5 years of age,
 * 12 months over 5 and up to 10, 6 months over 10 and up to 15) and Art. 26 VII (Decreto
 * 51.396/2006: "com o selo de vistoria vencido", 25 ORTN), with apprehension under Art. 28-A.
 * Operating (moving) while overdue is one continuing violation per missed due date (not one per
 * day): it grows until a new inspection is recorded. The inspection is overdue the day after the due
 * date. With no inspection on record at all the finding is suspected: the registry may simply
 * lack the date.
 */
export const inspectionExpiredRule = registryStateRule<SpConfig, SpContext>({
  id: 'FRET_INSPECTION_EXPIRED',
  pack: 'sp-fretamento',
  legalBasis: ['Art. 17', 'Art. 26 VII', 'Art. 28-A'],
  description: {
    pt: 'Veículo em operação com a vistoria (selo de vistoria) vencida.',
    en: 'Vehicle operating with its inspection overdue.',
  },
  penalty: () => fine('ORTN', 25, 'Art. 26 VII', { apprehension: true }),
  check(ctx, config): RegistryBreach | null {
    const v = ctx.vehicle;
    if (!v) return null;
    const due = inspectionDue(v, ctx.local.date, config);
    if (due.dueDate === null) {
      return {
        variant: 'no-inspection-on-record',
        suspected: true,
        key: 'no-inspection-on-record',
        measured: { lastInspectionDate: null, ageYears: due.ageForPeriod },
      };
    }
    if (ctx.local.date <= due.dueDate) return null;
    return {
      variant: null,
      suspected: false,
      key: `due:${due.dueDate}`,
      measured: {
        lastInspectionDate: v.lastInspectionDate,
        inspectionValidUntil: v.inspectionValidUntil,
        dueDate: due.dueDate,
        daysOverdue: daysBetween(due.dueDate, ctx.local.date),
        periodMonths: due.periodMonths,
        ageYearsForPeriod: due.ageForPeriod,
        dueBasis: due.basis,
        manufactureYear: v.manufactureYear,
      },
    };
  },
});
