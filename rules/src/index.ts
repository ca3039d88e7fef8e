/**
 * @vigia/rules — the pure rule core of Vigia: the three regulation packs (sp-fretamento,
 * df-taxi, belem-taxi), the engine that runs them over telemetry and dispatch records, the
 * time-versioned registry view with its spatial indexes, holiday calendars, local time, and
 * recidivism/penalty functions. No I/O. See README.md.
 */
export * from './calendar/index.js';
export * from './engine/index.js';
export * from './geo/index.js';
export * from './packs/index.js';
export * from './penalties/index.js';
export * from './registry/index.js';
export * from './time/index.js';
export * from './violations/index.js';
