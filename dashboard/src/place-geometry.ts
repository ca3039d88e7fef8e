import type { ApiClient } from './api-client.js';
import type { ViolationItem } from './api-types.js';
import { formatNumber } from './legal-time.js';
import { violationMessages } from './violation-messages.js';

/**
 * The shape of the stop, stand, zone or itinerary a violation names, read from the registry and
 * turned into GeoJSON the evidence layer can draw: an officer checks the trace against it (was the
 * bus within the stop's radius? was the taxi inside the signed Bandeira II area?).
 */

export interface PlaceShape {
  /** Areas (polygon fill and outline), lines (itineraries) and the reference points (stop, stand centre). */
  features: GeoJSON.Feature<GeoJSON.Geometry, { part: 'area' | 'line' | 'point' }>[];
  /** What the drawing shows, for the detail's legend ("within 30 m of the stop"). */
  caption: string;
}

/**
 * The rule's radius around a stop is the configured one it judged by; the API names it in the
 * measured values. `stopRadiusM` is what the dashboard asks rules to use; `radiusM` is also read.
 */
const stopRadiusKeys = ['stopRadiusM', 'radiusM'] as const;

/** Vertices of a drawn circle: smooth at street zoom, cheap to tessellate. */
const circleSegments = 64;
const c = violationMessages.placeCaptions;

const earthRadiusM = 6_371_008.8;

export async function loadPlaceShape(api: ApiClient, violation: ViolationItem): Promise<PlaceShape | null> {
  const place = violation.place;
  if (place === null) return null;
  switch (place.kind) {
    case 'stop': {
      const stop = await api.getStop(place.id);
      const radiusM = stopRadius(violation.measured);
      const point = pointFeature([stop.lon, stop.lat]);
      if (radiusM === null) return { features: [point], caption: c.stop(stop.name) };
      return {
        features: [areaFeature(circlePolygon([stop.lon, stop.lat], radiusM)), point],
        caption: c.stopRadius(stop.name, formatMetres(radiusM)),
      };
    }
    case 'stand': {
      const stand = await api.getStand(place.id);
      if (stand.geometry.type === 'Polygon') {
        return { features: [areaFeature(stand.geometry)], caption: c.stand(stand.name) };
      }
      const centre = stand.geometry.coordinates;
      const point = pointFeature(centre);
      if (!stand.radiusM) return { features: [point], caption: c.stand(stand.name) };
      return {
        features: [areaFeature(circlePolygon(centre, stand.radiusM)), point],
        caption: c.standRadius(stand.name, formatMetres(stand.radiusM)),
      };
    }
    case 'zone': {
      const zone = await api.getZone(place.id);
      return { features: [areaFeature(zone.geometry)], caption: c.zone(zone.name) };
    }
    case 'route': {
      const contract = await api.getContract(place.id);
      return {
        features: [{ type: 'Feature', geometry: contract.route, properties: { part: 'line' } }],
        caption: c.route(place.name),
      };
    }
    default:
      return null;
  }
}

function stopRadius(measured: Record<string, unknown>): number | null {
  for (const key of stopRadiusKeys) {
    const value = measured[key];
    if (typeof value === 'number' && Number.isFinite(value) && value > 0) return value;
  }
  return null;
}

/**
 * A circle of `radiusM` metres as a polygon, on the sphere (destination-point formula), so a 30 m
 * stop radius is drawn as 30 m on the ground at any latitude the packs cover.
 */
export function circlePolygon(centre: GeoJSON.Position, radiusM: number, segments = circleSegments): GeoJSON.Polygon {
  const [lon = 0, lat = 0] = centre;
  const lat1 = toRadians(lat);
  const lon1 = toRadians(lon);
  const angle = radiusM / earthRadiusM;
  const ring: GeoJSON.Position[] = [];
  for (let i = 0; i < segments; i += 1) {
    const bearing = (2 * Math.PI * i) / segments;
    const lat2 = Math.asin(Math.sin(lat1) * Math.cos(angle) + Math.cos(lat1) * Math.sin(angle) * Math.cos(bearing));
    const lon2 =
      lon1 +
      Math.atan2(
        Math.sin(bearing) * Math.sin(angle) * Math.cos(lat1),
        Math.cos(angle) - Math.sin(lat1) * Math.sin(lat2),
      );
    ring.push([toDegrees(lon2), toDegrees(lat2)]);
  }
  const first = ring[0];
  if (first) ring.push([...first]);
  return { type: 'Polygon', coordinates: [ring] };
}

function areaFeature(
  geometry: GeoJSON.Polygon | GeoJSON.MultiPolygon,
): GeoJSON.Feature<GeoJSON.Polygon | GeoJSON.MultiPolygon, { part: 'area' }> {
  return { type: 'Feature', geometry, properties: { part: 'area' } };
}

function pointFeature(coordinates: GeoJSON.Position): GeoJSON.Feature<GeoJSON.Point, { part: 'point' }> {
  return { type: 'Feature', geometry: { type: 'Point', coordinates }, properties: { part: 'point' } };
}

function formatMetres(value: number): string {
  return `${formatNumber(value, { maximumFractionDigits: 0 })} m`;
}

function toRadians(degrees: number): number {
  return (degrees * Math.PI) / 180;
}

function toDegrees(radians: number): number {
  return (radians * 180) / Math.PI;
}
