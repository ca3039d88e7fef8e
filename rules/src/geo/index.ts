export * from './area.js';
export * from './distance.js';
export * from './geojson.js';
