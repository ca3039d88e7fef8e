export * from './holiday-calendar.js';
