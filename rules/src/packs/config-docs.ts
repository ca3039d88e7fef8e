import type { Pack } from '@vigia/core';
import { z } from 'zod';
import { belemConfigSchema } from './belem-taxi/config.js';
import { dfConfigSchema } from './df-taxi/config.js';
import { spConfigSchema } from './sp-fretamento/config.js';

/** One documented setting of a pack configuration. */
export interface ConfigSetting {
  /** Dotted path, e.g. `bandeira2.minStretchSeconds`. */
  readonly path: string;
  readonly default: unknown;
  readonly description: string;
  /** True when the regulation does not fix the value (RULES.md: interpretation). */
  readonly interpretation: boolean;
  /** Article that fixes or motivates the value. */
  readonly basis: string | null;
}

export const packConfigSchemas = {
  'sp-fretamento': spConfigSchema,
  'df-taxi': dfConfigSchema,
  'belem-taxi': belemConfigSchema,
} as const;

type JsonSchemaNode = {
  type?: string | string[];
  properties?: Record<string, JsonSchemaNode>;
  default?: unknown;
  description?: string;
  interpretation?: boolean;
  basis?: string;
  anyOf?: JsonSchemaNode[];
};

/**
 * Every setting of a pack with its default, description and whether it is an interpretation —
 * generated from the zod schema itself, so the documentation cannot drift from the code.
 */
export function describePackConfig(pack: Pack): ConfigSetting[] {
  const json = z.toJSONSchema(packConfigSchemas[pack], { io: 'input', unrepresentable: 'any' }) as JsonSchemaNode;
  const out: ConfigSetting[] = [];
  const walk = (node: JsonSchemaNode, path: string): void => {
    if (node.properties && node.type === 'object') {
      for (const [key, child] of Object.entries(node.properties)) walk(child, path ? `${path}.${key}` : key);
      return;
    }
    out.push({
      path,
      default: node.default,
      description: node.description ?? '',
      interpretation: node.interpretation === true,
      basis: node.basis ?? null,
    });
  };
  walk(json, '');
  return out;
}
