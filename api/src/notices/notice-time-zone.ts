import { belemConfigSchema, dfConfigSchema, spConfigSchema } from '@vigia/rules';

/**
 * The time zone a pack's notice prints local time in: the pack's `timeZone` setting as the rule
 * engine resolves it (the defaults of its configuration schema), so the notice reads the same
 * wall clock the rule judged by.
 */
const schemas = { 'df-taxi': dfConfigSchema, 'belem-taxi': belemConfigSchema, 'sp-fretamento': spConfigSchema };
const zones = new Map<string, string>();

export function packTimeZone(pack: string): string {
  let zone = zones.get(pack);
  if (!zone) {
    const schema = schemas[pack as keyof typeof schemas];
    const parsed = schema?.safeParse({});
    zone = parsed?.success ? parsed.data.timeZone : 'America/Sao_Paulo';
    zones.set(pack, zone);
  }
  return zone;
}
