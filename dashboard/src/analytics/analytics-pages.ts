/**
 * The pages themselves, loaded on first use: they carry ECharts, which the desk, the dispatch
 * console and the field view never need, so it stays out of the bundle every visit downloads.
 */
export { mountAuthorizationSharesPage } from './authorization-shares-page.js';
export { mountFleetSizingPage } from './fleet-sizing-page.js';
export { mountOccupancyPage } from './occupancy-page.js';
export { mountRecordPage } from './record-page.js';
export { mountViolationHeatPage } from './violation-heat-page.js';
