export * from './local-time.js';
