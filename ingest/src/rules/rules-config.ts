import { readFile } from 'node:fs/promises';
import { AppError } from '@vigia/core';
import { belemConfigSchema, dfConfigSchema, type PackConfigs, spConfigSchema } from '@vigia/rules';
import { z } from 'zod';

/**
 * The regulator's settings of the rule packs (thresholds the regulations do not fix, tariff
 * tables, fine groups: rules/README.md lists every one with its default), read from the JSON
 * file RULES_CONFIG_FILE names: `{ "df-taxi": { ... }, "belem-taxi": { ... }, "sp-fretamento": { ... } }`.
 * Validated at start-up: a wrong setting stops the process with the setting named.
 */
const rulesConfigSchema = z
  .object({
    'sp-fretamento': spConfigSchema.optional(),
    'df-taxi': dfConfigSchema.optional(),
    'belem-taxi': belemConfigSchema.optional(),
  })
  .strict();

export async function loadRulesConfig(file: string | undefined): Promise<PackConfigs | undefined> {
  if (!file) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new AppError('RULES_CONFIG_UNREADABLE', `RULES_CONFIG_FILE ${file}: ${(err as Error).message}`, 500);
  }
  const parsed = rulesConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new AppError('RULES_CONFIG_INVALID', `RULES_CONFIG_FILE ${file}: ${problems.join('; ')}`, 500, problems);
  }
  // The engine validates again and fills the defaults; pass the file's own (input) values.
  return raw as PackConfigs;
}
