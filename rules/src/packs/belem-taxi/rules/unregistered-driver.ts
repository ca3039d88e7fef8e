import { type RegistryBreach, registryStateRule } from '../../common/daily-registry-rule.js';
import type { TaxiContext } from '../../common/taxi-context.js';
import type { BelemConfig } from '../config.js';
import { belemGroupPenalty } from '../penalty.js';

/**
 * BEL_UNREGISTERED_DRIVER — Art. 58 item 4.3 (group IV, 70 IPCA-E): "trafegar ou permitir que
 * pessoa dirija, sem o crachá de identificação do Sindicato ... ou com este vencido"; Art. 23
 * §1: the holder may register two auxiliary drivers, each with the union badge (*crachá*);
 * Art. 8 IV: handing the wheel to a driver not registered with the CTBel is a ground for
 * *cassação* of the authorization. The driver identified by telemetry (tachograph/meter card),
 * while the taxi moves or the meter is hired:
 * - `not-registered`: not among the authorization's registered drivers (and not its autonomous
 *   holder, who is always registered on their own authorization); opens cancellation (Art. 8 IV);
 * - `no-drivers-on-record`: the authorization lists no driver at all — a registry gap, suspected;
 * - `badge-expired`: the driver's badge expired in the registry (confirmed);
 * - `no-badge-on-record`: registered, but no badge validity on record: suspected, or not reported
 *   (`unregisteredDriver.noBadgeOnRecord`, default: not reported — a registry that does not track
 *   badges would otherwise flag every driver).
 * One continuing event per driver and breach, as long as the registry keeps it.
 */
export const belemUnregisteredDriverRule = registryStateRule<BelemConfig, TaxiContext>({
  id: 'BEL_UNREGISTERED_DRIVER',
  pack: 'belem-taxi',
  legalBasis: ['Art. 8 IV', 'Art. 23 §1', 'Art. 58 item 4.3'],
  description: {
    pt: 'Táxi conduzido por motorista não cadastrado na autorização ou com o crachá vencido.',
    en: 'Taxi driven by a driver not registered for the authorization, or whose union badge has expired.',
  },
  penalty: (_config, variant) => belemGroupPenalty('IV', '4.3', { opensCancellation: variant === 'not-registered' }),
  operating: (ctx) => ctx.moving || ctx.sample.meterState === 'hired',
  check(ctx, config): RegistryBreach | null {
    const v = ctx.vehicle;
    const driverId = ctx.sample.tachoDriverId;
    if (!v || driverId === null) return null;
    const driver = ctx.registry.driver(driverId, ctx.ms);
    const holder =
      driver !== null &&
      driver.operatorId !== null &&
      driver.operatorId === v.operatorId &&
      ctx.operator?.kind === 'taxi-autonomous';
    const base = { driverId, registeredDrivers: v.driverIds, driverKnownToRegistry: driver !== null };
    if (!holder && !v.driverIds.includes(driverId)) {
      const gap = v.driverIds.length === 0;
      return {
        variant: gap ? 'no-drivers-on-record' : 'not-registered',
        suspected: gap,
        subKey: driverId,
        measured: base,
      };
    }
    const badge = driver?.badgeValidUntil ?? null;
    if (badge === null) {
      if (config.unregisteredDriver.noBadgeOnRecord === 'ignore') return null;
      return {
        variant: 'no-badge-on-record',
        suspected: true,
        subKey: driverId,
        measured: { ...base, badgeValidUntil: null },
      };
    }
    if (badge >= ctx.local.date) return null;
    return {
      variant: 'badge-expired',
      key: `badge-expired:${driverId}:${badge}`,
      suspected: false,
      subKey: driverId,
      measured: { ...base, badgeValidUntil: badge },
    };
  },
});
