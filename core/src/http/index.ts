export * from './access.js';
export * from './auth.js';
export * from './error-handler.js';
export * from './failed-auth-limiter.js';
export * from './overload.js';
export * from './query-filters.js';
export * from './server.js';
export * from './shutdown.js';
