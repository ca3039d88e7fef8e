import type { DispatchRecord } from '../../../engine/dispatch.js';
import type { Finding, RuleMeta } from '../../../engine/rule.js';
import type { RegistryView } from '../../../registry/registry-view.js';
import { localDateOf } from '../../../time/local-time.js';
import type { BelemConfig } from '../config.js';
import { belemGroupPenalty } from '../penalty.js';

/**
 * BEL_UNAUTHORIZED_RADIO — Art. 42 (radio operators are credentialed by the regulator, with
 * ANATEL authorization), Art. 43 (the credential follows the ANATEL renewal), Art. 44 I (they
 * declare the vehicles they serve) and Art. 58 item 4.1 ("trafegar com aparelho de
 * rádio-comunicação sem estar devidamente autorizado", group IV, 70 IPCA-E). Judged per
 * dispatch record, not telemetry. Variants: `operator-not-credentialed` (unknown, not
 * authorized, or credential expired on the dispatch date) and `vehicle-not-declared`.
 */
export const belemUnauthorizedRadioRule: RuleMeta<BelemConfig> = {
  id: 'BEL_UNAUTHORIZED_RADIO',
  pack: 'belem-taxi',
  legalBasis: ['Art. 42', 'Art. 43', 'Art. 44 I', 'Art. 58 item 4.1'],
  description: {
    pt: 'Despacho por rádio-comunicação não credenciada, ou a veículo não informado pela operadora.',
    en: 'Radio dispatch by a non-credentialed operator, or to a vehicle the operator has not declared.',
  },
  penalty: () => belemGroupPenalty('IV', '4.1'),
};

export function judgeDispatch(record: DispatchRecord, registry: RegistryView, timeZone: string): Finding | null {
  const ms = record.ts.getTime();
  const date = localDateOf(ms, timeZone);
  const operator = registry.operator(record.radioOperatorId, ms);
  const credentialOk =
    operator !== null &&
    operator.kind === 'radio-operator' &&
    operator.status === 'authorized' &&
    (operator.credentialValidUntil === null || operator.credentialValidUntil >= date);
  let variant: string;
  if (!credentialOk) variant = 'operator-not-credentialed';
  else if (!operator.declaredVehicleIds.includes(record.vehicleId)) variant = 'vehicle-not-declared';
  else return null;
  return {
    ruleId: 'BEL_UNAUTHORIZED_RADIO',
    vehicleId: record.vehicleId,
    eventId: record.id ?? `${record.radioOperatorId}:${ms}`,
    phase: 'final',
    startedAt: ms,
    endedAt: ms,
    lat: record.lat,
    lon: record.lon,
    place: { id: record.radioOperatorId, kind: 'radio-operator', name: operator?.name ?? record.radioOperatorId },
    measured: {
      dispatchId: record.id,
      radioOperatorId: record.radioOperatorId,
      operatorKnown: operator !== null,
      operatorKind: operator?.kind ?? null,
      operatorStatus: operator?.status ?? null,
      credentialValidUntil: operator?.credentialValidUntil ?? null,
      vehicleDeclared: operator?.declaredVehicleIds.includes(record.vehicleId) ?? false,
      tripId: record.tripId,
    },
    confidence: 'confirmed',
    variant,
  };
}
