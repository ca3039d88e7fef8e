// Draws the driver page's PWA icons (public/driver-icon-192.png, -512.png): the same mark as
// public/driver-icon.svg, on a full-bleed background so the 512 px one also serves as "maskable".
// Run after changing the mark: `node dashboard/scripts/driver-icons.mjs`.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PNG } from 'pngjs';

const background = [0x0f, 0x17, 0x2a];
const mark = [0xfa, 0xcc, 0x15];
/** In units of the SVG's 64 × 64 view box; the mark is kept inside the maskable safe zone (r < 25.6). */
const ring = { radius: 20, width: 6 };
const dot = 8;
const samples = 4;

function coverage(x, y, size) {
  let inside = 0;
  for (let sy = 0; sy < samples; sy++) {
    for (let sx = 0; sx < samples; sx++) {
      const u = ((x + (sx + 0.5) / samples) / size) * 64 - 32;
      const v = ((y + (sy + 0.5) / samples) / size) * 64 - 32;
      const r = Math.hypot(u, v);
      if (r <= dot || Math.abs(r - ring.radius) <= ring.width / 2) inside++;
    }
  }
  return inside / (samples * samples);
}

for (const size of [192, 512]) {
  const png = new PNG({ width: size, height: size });
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      const a = coverage(x, y, size);
      const offset = (y * size + x) * 4;
      for (let c = 0; c < 3; c++) png.data[offset + c] = Math.round(background[c] * (1 - a) + mark[c] * a);
      png.data[offset + 3] = 255;
    }
  }
  const file = fileURLToPath(new URL(`../public/driver-icon-${size}.png`, import.meta.url));
  writeFileSync(file, PNG.sync.write(png));
  console.log(`wrote ${file}`);
}
