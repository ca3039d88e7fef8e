export * from './access.js';
export * from './auth.js';
export * from './error-handler.js';
export * from './server.js';
export * from './shutdown.js';
