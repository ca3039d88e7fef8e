import {
  type LiveViolation,
  type Pack,
  type ViolationConfidence,
  type ViolationFields,
  type ViolationItem,
  type ViolationPlace,
  violationConfidences,
  violationStatuses,
} from './api-types.js';

/**
 * Light checks on violations as they arrive (list pages and `violation` pushes). The server
 * validates what it sends, so these only guard against version skew: a record the feed cannot
 * file (no id, vehicle, start or known status) is dropped rather than breaking the panel, and
 * optional parts the panel reads are normalised so the rendering code need not re-check them.
 */

const packs: readonly Pack[] = ['sp-fretamento', 'df-taxi', 'belem-taxi'];

export function toViolationItem(value: unknown): ViolationItem | null {
  const fields = toViolationFields(value);
  if (!fields || !isRecord(value)) return null;
  const item: ViolationItem = fields;
  if (typeof value.updatedAt === 'string') item.updatedAt = value.updatedAt;
  if (typeof value.evidenceFrom === 'string') item.evidenceFrom = value.evidenceFrom;
  if (typeof value.evidenceTo === 'string') item.evidenceTo = value.evidenceTo;
  return item;
}

export function toLiveViolation(value: unknown): LiveViolation | null {
  const fields = toViolationFields(value);
  if (!fields || !isRecord(value)) return null;
  if (value.change !== 'raised' && value.change !== 'updated') return null;
  return { ...fields, change: value.change };
}

function toViolationFields(value: unknown): ViolationFields | null {
  if (!isRecord(value)) return null;
  const { id, ruleId, pack, vehicleId, startedAt, status, confidence } = value;
  if (typeof id !== 'string' || typeof ruleId !== 'string' || typeof vehicleId !== 'string') return null;
  if (!isOneOf(pack, packs) || !isOneOf(status, violationStatuses)) return null;
  if (typeof startedAt !== 'string' || !Number.isFinite(Date.parse(startedAt))) return null;
  return {
    id,
    ruleId,
    pack,
    legalBasis: Array.isArray(value.legalBasis)
      ? value.legalBasis.filter((article): article is string => typeof article === 'string')
      : [],
    description: stringOr(value.description, ''),
    descriptionEn: stringOr(value.descriptionEn, ''),
    vehicleId,
    plate: stringOr(value.plate, null),
    operatorId: stringOr(value.operatorId, null),
    driverId: stringOr(value.driverId, null),
    startedAt,
    endedAt: instantOrNull(value.endedAt),
    detectedAt: instantOrNull(value.detectedAt) ?? startedAt,
    lat: finiteOrNull(value.lat),
    lon: finiteOrNull(value.lon),
    place: toPlace(value.place),
    // A rule that cannot say how sure it is has not measured everything: the weaker claim.
    confidence: isOneOf<ViolationConfidence>(confidence, violationConfidences) ? confidence : 'suspected',
    measured: isRecord(value.measured) ? value.measured : {},
    penalty: isRecord(value.penalty) ? value.penalty : {},
    recidivism: isRecord(value.recidivism) ? value.recidivism : {},
    status,
  };
}

function toPlace(value: unknown): ViolationPlace | null {
  if (!isRecord(value)) return null;
  const { kind, id, name } = value;
  if (typeof kind !== 'string' || typeof id !== 'string') return null;
  return { kind, id, name: typeof name === 'string' && name ? name : id };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isOneOf<T extends string>(value: unknown, allowed: readonly T[]): value is T {
  return typeof value === 'string' && (allowed as readonly string[]).includes(value);
}

function stringOr<T extends string | null>(value: unknown, fallback: T): string | T {
  return typeof value === 'string' ? value : fallback;
}

function instantOrNull(value: unknown): string | null {
  return typeof value === 'string' && Number.isFinite(Date.parse(value)) ? value : null;
}

function finiteOrNull(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}
