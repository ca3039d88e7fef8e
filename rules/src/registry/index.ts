export * from './gtfs-stops.js';
export * from './in-memory-registry.js';
export * from './records.js';
export * from './registry-view.js';
