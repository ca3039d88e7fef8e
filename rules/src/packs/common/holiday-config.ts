import { z } from 'zod';

const fixedHolidaySchema = z.object({
  month: z.number().int().min(1).max(12),
  day: z.number().int().min(1).max(31),
  name: z.string().min(1),
  fromYear: z.number().int().optional(),
});

/** The holiday calendar of a pack (see calendar/holiday-calendar.ts). */
export function holidayConfigSchema(defaults: {
  state: string;
  fixed: readonly z.input<typeof fixedHolidaySchema>[];
  fixedDescription: string;
}) {
  return z.object({
    state: z.string().default(defaults.state).meta({
      description: 'Brazilian state (ISO 3166-2 suffix) whose holidays date-holidays adds to the national ones.',
    }),
    countedTypes: z
      .array(z.enum(['public', 'bank', 'optional', 'observance']))
      .default(['public'])
      .meta({
        description:
          "date-holidays types that count as holidays. Default: only 'public'. Carnaval Monday/Tuesday and Corpus Christi are typed 'bank', the Carnaval weekend, Ash Wednesday morning and the 24/31 December afternoons 'optional': they are pontos facultativos, not holidays under Lei 9.093/1995, unless a local decree declares them (record it as a registry holiday override).",
        interpretation: true,
      }),
    uncountedDayConfidence: z.enum(['suspected', 'confirmed']).default('suspected').meta({
      description:
        "Confidence of a time-based violation (Bandeira II) on an uncounted bank/optional day: suspected by default, so a reviewer checks whether that year's decree made it a holiday.",
      interpretation: true,
    }),
    fixed: z
      .array(fixedHolidaySchema)
      .default([...defaults.fixed])
      .meta({ description: defaults.fixedDescription }),
  });
}
