import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PbfReader } from 'pbf';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { bboxContains, servedAreas } from '../src/served-areas.js';

/**
 * The committed street extracts and glyphs the built-in map and the api's reverse lookup read:
 * the schema they rely on, the extents served-areas.ts states, and glyph ranges MapLibre can
 * decode (with Portuguese's accented letters in them).
 */

const publicDir = fileURLToPath(new URL('../public/', import.meta.url));

const roadClass = z.enum(['motorway', 'trunk', 'primary', 'secondary', 'tertiary', 'residential', 'unknown']);
/** At most 5 decimals (about 1 m), as derive-basemap.mjs writes them. */
const coordinate = z.number().refine((value) => Math.abs(value * 1e5 - Math.round(value * 1e5)) < 1e-6);
const roadsSchema = z.object({
  type: z.literal('FeatureCollection'),
  attribution: z.string().includes('OpenStreetMap'),
  features: z.array(
    z.object({
      type: z.literal('Feature'),
      properties: z.strictObject({ name: z.string().min(1).nullable(), class: roadClass }),
      geometry: z.object({
        type: z.literal('LineString'),
        coordinates: z.array(z.tuple([coordinate, coordinate])).min(2),
      }),
    }),
  ),
});

function readRoads(city: 'sao-paulo' | 'brasilia') {
  return roadsSchema.parse(JSON.parse(readFileSync(`${publicDir}basemap/${city}-roads.geojson`, 'utf8')));
}

function coverageOf(id: 'sao-paulo' | 'brasilia') {
  const coverage = servedAreas.find((area) => area.id === id)?.streetCoverage;
  if (!coverage) throw new Error(`${id} has no street coverage`);
  return coverage;
}

describe('street extracts', () => {
  it('São Paulo: named streets by class, inside the stated coverage', () => {
    const roads = readRoads('sao-paulo');
    expect(roads.features.length).toBeGreaterThan(4000);
    const named = roads.features.filter((feature) => feature.properties.name !== null);
    expect(named.length / roads.features.length).toBeGreaterThan(0.85);
    expect(new Set(roads.features.map((feature) => feature.properties.class))).not.toContain('unknown');
    expect(named.some((feature) => feature.properties.name === 'Avenida Paulista')).toBe(true);
    const coverage = coverageOf('sao-paulo');
    const outside = roads.features
      .flatMap((f) => f.geometry.coordinates)
      .filter(([lon, lat]) => !bboxContains(coverage, lon, lat));
    expect(outside).toEqual([]);
  });

  it('Brasília: unnamed, unclassified lines, inside the stated coverage', () => {
    const roads = readRoads('brasilia');
    expect(roads.features.length).toBeGreaterThan(10_000);
    expect(roads.features.every((f) => f.properties.name === null && f.properties.class === 'unknown')).toBe(true);
    const coverage = coverageOf('brasilia');
    const outside = roads.features
      .flatMap((f) => f.geometry.coordinates)
      .filter(([lon, lat]) => !bboxContains(coverage, lon, lat));
    expect(outside).toEqual([]);
  });

  it('Belém has none, and its area says so', () => {
    expect(servedAreas.find((area) => area.id === 'belem')?.streetCoverage).toBeNull();
  });
});

interface Glyph {
  id: number;
  bitmapLength: number;
  width: number;
  height: number;
  advance: number;
}

/** MapLibre's glyph protobuf: glyphs { stacks = 1 { name = 1, range = 2, glyphs = 3 { id, bitmap, w, h, l, t, advance } } }. */
function decodeGlyphs(bytes: Uint8Array): { name: string; range: string; glyphs: Glyph[] } {
  const stack = { name: '', range: '', glyphs: [] as Glyph[] };
  new PbfReader(bytes).readFields((tag, _result, pbf) => {
    if (tag !== 1) return;
    pbf.readMessage((stackTag, out, p) => {
      if (stackTag === 1) out.name = p.readString();
      else if (stackTag === 2) out.range = p.readString();
      else if (stackTag === 3) {
        const glyph: Glyph = { id: 0, bitmapLength: 0, width: 0, height: 0, advance: 0 };
        p.readMessage((glyphTag, g, q) => {
          if (glyphTag === 1) g.id = q.readVarint();
          else if (glyphTag === 2) g.bitmapLength = q.readBytes().length;
          else if (glyphTag === 3) g.width = q.readVarint();
          else if (glyphTag === 4) g.height = q.readVarint();
          else if (glyphTag === 5 || glyphTag === 6) q.readSVarint();
          else if (glyphTag === 7) g.advance = q.readVarint();
        }, glyph);
        out.glyphs.push(glyph);
      }
    }, stack);
  }, stack);
  return stack;
}

describe('label glyphs', () => {
  /** The SDF border MapLibre expects around each glyph bitmap. */
  const buffer = 3;

  it.each(['NotoSans-Regular', 'NotoSans-Bold'])('%s covers Portuguese letters with well-formed bitmaps', (font) => {
    const latin = decodeGlyphs(readFileSync(`${publicDir}glyphs/${font}/0-255.pbf`));
    expect(latin).toMatchObject({ name: font, range: '0-255' });
    const byId = new Map(latin.glyphs.map((glyph) => [glyph.id, glyph]));
    for (const letter of 'AaÁáÂâÃãÀàÇçÉéÊêÍíÓóÔôÕõÚúº') {
      const glyph = byId.get(letter.codePointAt(0) ?? 0);
      expect(glyph, letter).toBeDefined();
      if (!glyph) continue;
      expect(glyph.width).toBeGreaterThan(0);
      expect(glyph.advance).toBeGreaterThan(0);
      expect(glyph.bitmapLength).toBe((glyph.width + 2 * buffer) * (glyph.height + 2 * buffer));
    }
    // A space advances without ink.
    expect(byId.get(32)).toMatchObject({ width: 0, bitmapLength: 0 });
    expect(byId.get(32)?.advance).toBeGreaterThan(0);
    const punctuation = decodeGlyphs(readFileSync(`${publicDir}glyphs/${font}/8192-8447.pbf`));
    expect(punctuation.glyphs.map((glyph) => glyph.id)).toContain(0x2013);
  });
});
