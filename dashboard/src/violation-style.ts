/**
 * Colours of what the violations feature draws on the map. They are kept apart from the fleet's
 * status colours (vehicle-status.ts) and from the base map's greys so an officer never reads a
 * violation mark as a marker state; the browser test looks for these exact colours on the canvas.
 */
export const violationColors = {
  /** The ring around a vehicle with an open violation. */
  mark: '#dc2626',
  /** The evidence trace and its samples. */
  trace: '#c026d3',
  /** The stop, stand, zone or itinerary involved. */
  place: '#0284c7',
} as const;
