export * from './measured-labels.js';
export * from './rule-ids.js';
export * from './violation.js';
