export * from './rule-ids.js';
export * from './violation.js';
