// Derives the offline map's label glyphs (public/glyphs/<font stack>/<start>-<end>.pbf) from the
// Noto Sans web fonts of @fontsource/noto-sans (SIL Open Font License 1.1, see public/glyphs/LICENSE.md).
// MapLibre reads labels' glyphs as signed distance fields in a small protobuf per 256 code points;
// serving them from the package keeps the map free of any font CDN.
//
//   npm run derive:glyphs -w @vigia/dashboard
//
// The distance fields are drawn by @mapbox/tiny-sdf, which needs a 2D canvas: the script runs it
// inside headless Chromium (the one the browser tests use), then encodes the protobuf here with pbf.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PbfWriter } from 'pbf';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
const dashboardDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outputDir = join(dashboardDir, 'public', 'glyphs');
const fontsourceDir = dirname(require.resolve('@fontsource/noto-sans/package.json'));
const tinySdfSource = readFileSync(require.resolve('@mapbox/tiny-sdf'), 'utf8');

/** What Portuguese street names need: Basic Latin + Latin-1, Latin Extended-A/B, punctuation (– “ ” …). */
const ranges = [0, 256, 8192];
/** MapLibre's own server-glyph parameters: 24 px em, 3 px buffer, 8 px radius. */
const sdf = { fontSize: 24, buffer: 3, radius: 8, cutoff: 0.25 };
/**
 * TinySDF's top is measured from the baseline; glyph servers measure it from an origin above the em
 * box. MapLibre uses the same offset when it draws glyphs locally, so labels sit where it expects.
 */
const topAdjustment = 27;
const stacks = [
  { name: 'NotoSans-Regular', weight: 400 },
  { name: 'NotoSans-Bold', weight: 700 },
];
const subsets = ['latin', 'latin-ext'];
const unicodeRanges = JSON.parse(readFileSync(join(fontsourceDir, 'unicode.json'), 'utf8'));

function fontFaces(weight) {
  return subsets.map((subset) => ({
    unicodeRange: unicodeRanges[subset],
    base64: readFileSync(join(fontsourceDir, 'files', `noto-sans-${subset}-${weight}-normal.woff2`)).toString('base64'),
  }));
}

/** Code points the two subsets cover (others would silently fall back to a system font). */
function coveredCodePoints() {
  const covered = new Set();
  for (const subset of subsets) {
    for (const part of unicodeRanges[subset].split(',')) {
      const [from, to = from] = part.replace('U+', '').split('-');
      for (let cp = Number.parseInt(from, 16); cp <= Number.parseInt(to, 16); cp++) covered.add(cp);
    }
  }
  return covered;
}

const isControl = (cp) => cp < 0x20 || (cp >= 0x7f && cp < 0xa0);

function encodeRange(stackName, start, glyphs) {
  const pbf = new PbfWriter();
  pbf.writeMessage(1, (_, out) => {
    out.writeStringField(1, stackName);
    out.writeStringField(2, `${start}-${start + 255}`);
    for (const glyph of glyphs) {
      out.writeMessage(
        3,
        (g, o) => {
          o.writeVarintField(1, g.id);
          if (g.bitmap.length > 0) o.writeBytesField(2, g.bitmap);
          o.writeVarintField(3, g.width);
          o.writeVarintField(4, g.height);
          o.writeSVarintField(5, g.left);
          o.writeSVarintField(6, g.top);
          o.writeVarintField(7, g.advance);
        },
        glyph,
      );
    }
  });
  return pbf.finish();
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless=new', '--disable-background-networking', '--font-render-hinting=none'],
});
try {
  const page = await browser.newPage();
  await page.setContent('<!doctype html><html><body></body></html>');
  await page.addScriptTag({
    content: `${tinySdfSource.replace('export default class TinySDF', 'class TinySDF')}\nwindow.TinySDF = TinySDF;`,
  });
  const covered = coveredCodePoints();
  for (const stack of stacks) {
    const family = `Vigia ${stack.name}`;
    await page.evaluate(
      async ({ family, faces }) => {
        for (const face of faces) {
          const bytes = Uint8Array.from(atob(face.base64), (c) => c.charCodeAt(0));
          const font = new FontFace(family, bytes, { unicodeRange: face.unicodeRange });
          document.fonts.add(await font.load());
        }
      },
      { family, faces: fontFaces(stack.weight) },
    );
    const stackDir = join(outputDir, stack.name);
    rmSync(stackDir, { recursive: true, force: true });
    mkdirSync(stackDir, { recursive: true });
    for (const start of ranges) {
      const codePoints = [];
      for (let cp = start; cp < start + 256; cp++) if (covered.has(cp) && !isControl(cp)) codePoints.push(cp);
      const drawn = await page.evaluate(
        ({ family, codePoints, sdf }) => {
          const tinySdf = new window.TinySDF({ ...sdf, fontFamily: `'${family}'` });
          return codePoints.map((id) => {
            const g = tinySdf.draw(String.fromCodePoint(id));
            return { id, ...g, data: Array.from(g.data) };
          });
        },
        { family, codePoints, sdf },
      );
      const glyphs = drawn.map((g) => ({
        id: g.id,
        bitmap: g.glyphWidth > 0 && g.glyphHeight > 0 ? Uint8Array.from(g.data) : new Uint8Array(),
        width: g.glyphWidth > 0 && g.glyphHeight > 0 ? g.glyphWidth : 0,
        height: g.glyphWidth > 0 && g.glyphHeight > 0 ? g.glyphHeight : 0,
        left: g.glyphLeft,
        top: g.glyphTop - topAdjustment,
        advance: Math.round(g.glyphAdvance),
      }));
      const bytes = encodeRange(stack.name, start, glyphs);
      writeFileSync(join(stackDir, `${start}-${start + 255}.pbf`), bytes);
      console.log(`${stack.name} ${start}-${start + 255}: ${glyphs.length} glyphs, ${bytes.length} bytes`);
    }
  }
} finally {
  await browser.close();
}
