import { loadRulesConfig } from '@vigia/ingest';
import { belemConfigSchema, dfConfigSchema, spConfigSchema } from '@vigia/rules';

/** The packs the dashboard shows, each with the schema that fills its settings' defaults. */
const schemas = { 'df-taxi': dfConfigSchema, 'belem-taxi': belemConfigSchema, 'sp-fretamento': spConfigSchema };
export type PackTimeZones = Record<keyof typeof schemas, string>;

/**
 * Each pack's legal time zone as the rules judge by it: the regulator's RULES_CONFIG_FILE where
 * it sets `timeZone`, else the pack's default. The dashboard shows every time on this clock
 * (`GET /v1/dashboard-config` → `packTimeZones`), so a configured zone reaches the screen too.
 */
export async function packTimeZonesOf(rulesConfigFile: string | undefined): Promise<PackTimeZones> {
  const configured = (await loadRulesConfig(rulesConfigFile)) ?? {};
  return {
    'df-taxi': dfConfigSchema.parse(configured['df-taxi'] ?? {}).timeZone,
    'belem-taxi': belemConfigSchema.parse(configured['belem-taxi'] ?? {}).timeZone,
    'sp-fretamento': spConfigSchema.parse(configured['sp-fretamento'] ?? {}).timeZone,
  };
}
