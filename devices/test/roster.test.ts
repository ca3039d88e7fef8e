import { describe, expect, it } from 'vitest';
import { MIN_FLEET, splitFleet } from '../src/fleet/fleet-split.js';
import { buildRoster } from '../src/fleet/roster.js';

const REGISTERED = Date.parse('2026-03-10T12:00:00Z');

/** Validates a CPF's check digits from scratch (Receita Federal's algorithm). */
function cpfValid(cpf: string): boolean {
  const d = cpf.replace(/\D/g, '').split('').map(Number);
  if (d.length !== 11 || d.every((x) => x === d[0])) return false;
  const check = (n: number) => {
    const sum = d.slice(0, n).reduce((acc, x, i) => acc + x * (n + 1 - i), 0);
    const r = (sum * 10) % 11;
    return r === 10 ? 0 : r;
  };
  return check(9) === d[9] && check(10) === d[10];
}

function cnpjValid(cnpj: string): boolean {
  const d = cnpj.replace(/\D/g, '').split('').map(Number);
  if (d.length !== 14) return false;
  const check = (n: number) => {
    const weights = n === 12 ? [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2] : [6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2];
    const r = d.slice(0, n).reduce((acc, x, i) => acc + x * (weights[i] ?? 0), 0) % 11;
    return r < 2 ? 0 : 11 - r;
  };
  return check(12) === d[12] && check(13) === d[13];
}

describe('fleet split', () => {
  it('splits 72 vehicles about 40/30/30', () => {
    expect(splitFleet(72)).toEqual({ dfTaxis: 29, belemTaxis: 22, spBuses: 21 });
  });

  it('keeps at least one of each kind and adds up, for every size', () => {
    for (let n = MIN_FLEET; n <= 300; n++) {
      const s = splitFleet(n);
      expect(s.dfTaxis + s.belemTaxis + s.spBuses).toBe(n);
      expect(Math.min(s.dfTaxis, s.belemTaxis, s.spBuses)).toBeGreaterThanOrEqual(1);
      if (n >= 20) expect(Math.abs(s.dfTaxis / n - 0.4)).toBeLessThan(0.05);
    }
    expect(() => splitFleet(2)).toThrow();
  });
});

describe('registry roster', () => {
  const roster = buildRoster(72, REGISTERED);

  it('has stable ids and plates, whatever the registration date', () => {
    const later = buildRoster(72, REGISTERED + 40 * 86_400_000);
    expect(later.entries.map((e) => [e.vehicle.id, e.vehicle.plate, e.device.identifier])).toEqual(
      roster.entries.map((e) => [e.vehicle.id, e.vehicle.plate, e.device.identifier]),
    );
    // A bigger fleet extends the smaller one instead of renumbering it.
    const bigger = buildRoster(80, REGISTERED);
    const ids = new Set(bigger.entries.map((e) => e.vehicle.id));
    for (const e of roster.entries) expect(ids.has(e.vehicle.id)).toBe(true);
  });

  it('registers valid, unique Mercosul plates and documents', () => {
    const plates = roster.entries.map((e) => e.vehicle.plate);
    expect(new Set(plates).size).toBe(plates.length);
    for (const p of plates) expect(p).toMatch(/^[A-Z]{3}[0-9][A-Z][0-9]{2}$/);
    for (const o of roster.operators) expect(cnpjValid(o.document), o.document).toBe(true);
    for (const d of roster.entries.flatMap((e) => e.drivers)) {
      expect(cpfValid(d.document), d.document).toBe(true);
      expect(d.licenceNumber).toMatch(/^\d{11}$/);
    }
  });

  it('keeps every vehicle compliant with its regulation on the registration date, but for its registry vices', () => {
    const today = new Date(REGISTERED).toISOString().slice(0, 10);
    const sixMonthsAgo = new Date(REGISTERED - 182 * 86_400_000).toISOString().slice(0, 10);
    const thirtyDaysAgo = new Date(REGISTERED - 30 * 86_400_000).toISOString().slice(0, 10);
    const overdue = new Date(REGISTERED - 600 * 86_400_000).toISOString().slice(0, 10);
    for (const { vehicle, device, drivers, vices } of roster.entries) {
      if (vices?.permitExpired) {
        // Not revalidated for a few weeks: within DF's 30-day grace (Art. 14 §3).
        expect(vehicle.permitValidUntil < today && vehicle.permitValidUntil >= thirtyDaysAgo).toBe(true);
      } else {
        expect(vehicle.permitValidUntil > today).toBe(true);
      }
      if (vices?.inspectionOverdue) {
        // Overdue at every age band of the SP decree (18 months at most).
        expect(vehicle.lastInspectionDate < overdue).toBe(true);
      } else {
        expect(vehicle.lastInspectionDate <= today && vehicle.lastInspectionDate >= sixMonthsAgo).toBe(true);
      }
      expect(2026 - vehicle.manufactureYear).toBeLessThan(vehicle.pack === 'sp-fretamento' ? 15 : 8);
      if (vehicle.pack === 'belem-taxi') expect((vehicle.divValidUntil ?? '') > today).toBe(!vices?.divExpired);
      if (vehicle.pack === 'sp-fretamento') {
        expect(vehicle.serviceType).toBe('fretamento-continuo');
        expect(vehicle.capacity).toBeGreaterThanOrEqual(44);
        expect(vehicle.capacity).toBeLessThanOrEqual(46);
      } else {
        expect(vehicle.serviceType).toBe('taxi');
        expect(vehicle.capacity).toBe(4);
        // An autonomous DF permit holds at most two drivers (Art. 36).
        expect(drivers.length).toBeLessThanOrEqual(2);
      }
      expect(vehicle.driverIds).toEqual(drivers.map((d) => d.id));
      expect(device.vehicleId).toBe(vehicle.id);
      expect(device.identifier).toMatch(/^SIM-(DF|BEL|SP)-\d{4}$/);
      expect(roster.operators.find((o) => o.id === vehicle.operatorId)?.pack).toBe(vehicle.pack);
    }
  });
});

describe('vices of the simulated fleet', () => {
  const roster = buildRoster(72, REGISTERED);

  it('gives a minority of every city a vice, the same whatever the registration date and fleet size', () => {
    for (const pack of ['df-taxi', 'belem-taxi', 'sp-fretamento'] as const) {
      const entries = roster.entries.filter((e) => e.vehicle.pack === pack);
      const share = entries.filter((e) => e.vices).length / entries.length;
      expect(share, pack).toBeGreaterThanOrEqual(0.1);
      expect(share, pack).toBeLessThanOrEqual(0.2);
    }
    const vicesOf = (r: typeof roster) => r.entries.filter((e) => e.vices).map((e) => [e.vehicle.id, e.vices]);
    expect(vicesOf(buildRoster(72, REGISTERED + 40 * 86_400_000))).toEqual(vicesOf(roster));
    const bigger = new Map(vicesOf(buildRoster(80, REGISTERED)).map(([id, v]) => [id, v]));
    for (const [id, v] of vicesOf(roster)) expect(bigger.get(id as string)).toEqual(v);
  });

  it('drives a rented-out permit with drivers on no registry record, and keeps every taxi vice to a two-driver taxi', () => {
    const registered = new Set(roster.entries.flatMap((e) => e.drivers.map((d) => d.id)));
    const rented = roster.entries.filter((e) => e.vices?.unregisteredDriverIds);
    expect(rented.length).toBeGreaterThan(0);
    for (const e of rented) {
      expect(e.vehicle.pack).toBe('df-taxi');
      for (const id of e.vices?.unregisteredDriverIds ?? []) expect(registered.has(id), id).toBe(false);
    }
    for (const e of roster.entries)
      if (e.vices && e.vehicle.pack !== 'sp-fretamento') expect(e.drivers).toHaveLength(2);
  });
});
