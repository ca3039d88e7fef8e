export * from './local-time.js';
export * from './per-minute.js';
