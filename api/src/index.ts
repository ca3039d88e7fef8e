export { LIVE_NAMESPACE, LiveHub } from './live/live-hub.js';
export { type RunningSystem, type SystemComponents, startSystem } from './system.js';
