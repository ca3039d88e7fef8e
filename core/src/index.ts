export * from './bus/index.js';
export * from './config.js';
export * from './errors.js';
export * from './http/index.js';
export * from './live.js';
export * from './logger.js';
export * from './telemetry.js';
export * from './tokens.js';
