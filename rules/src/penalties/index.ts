export * from './price.js';
export * from './recidivism.js';
