export * from './checkpoint.js';
export * from './dispatch.js';
export * from './general-config.js';
export * from './occupancy.js';
export * from './pack-runtime.js';
export * from './rule.js';
export * from './rule-engine.js';
export * from './sample-facts.js';
