import type { LonLat, MapPlace } from './notice-store.js';

/**
 * The evidence map of a notice, drawn server-side as vectors into the PDF: the vehicle's trace
 * over the stop/stand/zone involved and the registry's places around it, on a plain background
 * with a metric grid, a scale bar and a north arrow. No tiles: the notice must render the same
 * offline and in tests, and vector lines stay sharp when printed.
 */

/** What the map needs from pdfkit (a structural subset, so the drawing is typed without `any`). */
export type MapCanvas = PDFKit.PDFDocument;

export interface MapFrame {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface MapContent {
  trace: LonLat[];
  /** The violation's own point, when the rule recorded one. */
  event: LonLat | null;
  places: MapPlace[];
  /** The stop, stand or zone the violation names (drawn highlighted). */
  involvedPlaceId: string | null;
  legend: {
    trace: string;
    start: string;
    end: string;
    event: string;
    stop: string;
    stand: string;
    zone: string;
    north: string;
    noTrace: string;
  };
}

/** The trace colour; tests look for it in the rendered page. Nothing else on the map uses red. */
export const TRACE_COLOUR = '#dc143c';
const BACKGROUND = '#f3f1ec';
const GRID = '#e0dbd0';
const M_PER_DEG = 111_320;
/** Smallest extent shown (m): a trace of a few metres still shows its surroundings. */
const MIN_EXTENT_M = 300;

interface Projection {
  toPage(p: LonLat): [number, number];
  ptPerM: number;
  /** The page-space bounds of the frame in metres from the projection origin. */
  metres: { minX: number; maxX: number; minY: number; maxY: number };
}

function ringsOf(g: MapPlace['geometry']): LonLat[][] {
  if (g.type === 'Polygon') return g.coordinates as LonLat[][];
  if (g.type === 'MultiPolygon') return (g.coordinates as LonLat[][][]).flat();
  return [];
}

function pointsOf(g: MapPlace['geometry']): LonLat[] {
  if (g.type === 'Point') return [g.coordinates as LonLat];
  return ringsOf(g).flat();
}

function project(frame: MapFrame, focus: LonLat[]): Projection {
  const lats = focus.map((p) => p[1]);
  const lons = focus.map((p) => p[0]);
  const lat0 = (Math.min(...lats) + Math.max(...lats)) / 2;
  const lon0 = (Math.min(...lons) + Math.max(...lons)) / 2;
  const kx = M_PER_DEG * Math.cos((lat0 * Math.PI) / 180);
  const toM = (p: LonLat): [number, number] => [(p[0] - lon0) * kx, (p[1] - lat0) * M_PER_DEG];
  const ms = focus.map(toM);
  const halfW = Math.max(MIN_EXTENT_M / 2, ...ms.map((m) => Math.abs(m[0]))) * 1.15;
  const halfH = Math.max(MIN_EXTENT_M / 2, ...ms.map((m) => Math.abs(m[1]))) * 1.15;
  const ptPerM = Math.min(frame.width / (2 * halfW), frame.height / (2 * halfH));
  const cx = frame.x + frame.width / 2;
  const cy = frame.y + frame.height / 2;
  return {
    ptPerM,
    toPage(p) {
      const [mx, my] = toM(p);
      return [cx + mx * ptPerM, cy - my * ptPerM];
    },
    metres: {
      minX: -frame.width / 2 / ptPerM,
      maxX: frame.width / 2 / ptPerM,
      minY: -frame.height / 2 / ptPerM,
      maxY: frame.height / 2 / ptPerM,
    },
  };
}

/** 1, 2 or 5 × a power of ten, at most `max`. */
function niceLength(max: number): number {
  const p = 10 ** Math.floor(Math.log10(max));
  return [5, 2, 1].map((k) => k * p).find((v) => v <= max) ?? p;
}

function inside(frame: MapFrame, [x, y]: [number, number], margin = 0): boolean {
  return (
    x >= frame.x - margin &&
    x <= frame.x + frame.width + margin &&
    y >= frame.y - margin &&
    y <= frame.y + frame.height + margin
  );
}

function drawPlace(doc: MapCanvas, proj: Projection, place: MapPlace, involved: boolean): void {
  const g = place.geometry;
  const stroke = involved ? 1.6 : 0.6;
  if (place.kind === 'stop') {
    const [x, y] = proj.toPage(g.coordinates as LonLat);
    doc
      .lineWidth(stroke)
      .rect(x - 2.5, y - 2.5, 5, 5)
      .fillAndStroke(involved ? '#f2c14e' : '#ffffff', '#444444');
    return;
  }
  const [fill, line] =
    place.kind === 'zone'
      ? involved
        ? ['#fde9a9', '#b8860b']
        : ['#dde7d6', '#93a888']
      : involved
        ? ['#b9d3f2', '#1f4e8c']
        : ['#d3e2f4', '#5b84b8'];
  doc.lineWidth(stroke);
  if (g.type === 'Point') {
    const [x, y] = proj.toPage(g.coordinates as LonLat);
    const r = Math.max(2, (place.radiusM ?? 10) * proj.ptPerM);
    doc.circle(x, y, r).fillOpacity(0.8).fillAndStroke(fill, line).fillOpacity(1);
    return;
  }
  for (const ring of ringsOf(g)) {
    const pts = ring.map((p) => proj.toPage(p));
    if (pts.length < 3) continue;
    doc
      .polygon(...pts)
      .fillOpacity(0.7)
      .fillAndStroke(fill, line)
      .fillOpacity(1);
  }
}

function label(doc: MapCanvas, proj: Projection, frame: MapFrame, place: MapPlace): void {
  const pts = pointsOf(place.geometry);
  if (pts.length === 0) return;
  const lon = pts.reduce((s, p) => s + p[0], 0) / pts.length;
  const lat = pts.reduce((s, p) => s + p[1], 0) / pts.length;
  const at = proj.toPage([lon, lat]);
  if (!inside(frame, at)) return;
  doc
    .fillColor('#333333')
    .fontSize(6.5)
    .text(place.name, at[0] + 5, at[1] - 3, { lineBreak: false });
}

export function drawEvidenceMap(doc: MapCanvas, frame: MapFrame, content: MapContent): void {
  const involved = content.places.filter((p) => p.id === content.involvedPlaceId);
  const focus = [
    ...content.trace,
    ...(content.event ? [content.event] : []),
    ...involved.flatMap((p) => pointsOf(p.geometry)),
  ];
  doc.save();
  doc.rect(frame.x, frame.y, frame.width, frame.height).fill(BACKGROUND);
  if (focus.length === 0) {
    doc
      .fillColor('#555555')
      .fontSize(9)
      .text(content.legend.noTrace, frame.x + 12, frame.y + frame.height / 2);
    doc.restore();
    doc.lineWidth(0.8).rect(frame.x, frame.y, frame.width, frame.height).stroke('#333333');
    return;
  }
  const proj = project(frame, focus);

  doc.save();
  doc.rect(frame.x, frame.y, frame.width, frame.height).clip();
  // A metric grid: the background a reader measures distances against.
  const step = niceLength((proj.metres.maxX - proj.metres.minX) / 6);
  doc.lineWidth(0.4).strokeColor(GRID);
  const cx = frame.x + frame.width / 2;
  const cy = frame.y + frame.height / 2;
  for (let m = Math.ceil(proj.metres.minX / step) * step; m <= proj.metres.maxX; m += step) {
    const x = cx + m * proj.ptPerM;
    doc
      .moveTo(x, frame.y)
      .lineTo(x, frame.y + frame.height)
      .stroke();
  }
  for (let m = Math.ceil(proj.metres.minY / step) * step; m <= proj.metres.maxY; m += step) {
    const y = cy - m * proj.ptPerM;
    doc
      .moveTo(frame.x, y)
      .lineTo(frame.x + frame.width, y)
      .stroke();
  }
  // Context first, the involved place over it, the trace on top.
  const context = content.places.filter(
    (p) => p.id !== content.involvedPlaceId && pointsOf(p.geometry).some((q) => inside(frame, proj.toPage(q), 40)),
  );
  for (const p of context.filter((q) => q.kind === 'zone')) drawPlace(doc, proj, p, false);
  for (const p of context.filter((q) => q.kind !== 'zone')) drawPlace(doc, proj, p, false);
  for (const p of involved) drawPlace(doc, proj, p, true);
  for (const p of [...context, ...involved]) label(doc, proj, frame, p);

  const pts = content.trace.map((p) => proj.toPage(p));
  if (pts.length > 0) {
    const [first, ...rest] = pts as [[number, number], ...[number, number][]];
    doc.moveTo(first[0], first[1]);
    for (const [x, y] of rest) doc.lineTo(x, y);
    doc.lineWidth(2.5).lineJoin('round').lineCap('round').stroke(TRACE_COLOUR);
    const last = pts.at(-1) ?? first;
    doc.lineWidth(1).circle(first[0], first[1], 4).fillAndStroke('#1a9850', '#ffffff');
    doc.lineWidth(1).circle(last[0], last[1], 4).fillAndStroke('#313695', '#ffffff');
  }
  if (content.event) {
    const [x, y] = proj.toPage(content.event);
    doc.lineWidth(1.5).circle(x, y, 7).stroke('#111111');
  }
  doc.restore();

  // Scale bar (bottom left) and north arrow (top right), over the map.
  const barM = niceLength(frame.width / 4 / proj.ptPerM);
  const barPt = barM * proj.ptPerM;
  const bx = frame.x + 10;
  const by = frame.y + frame.height - 14;
  doc
    .rect(bx - 4, by - 12, barPt + 40, 20)
    .fillOpacity(0.8)
    .fill('#ffffff')
    .fillOpacity(1);
  doc
    .lineWidth(2)
    .moveTo(bx, by)
    .lineTo(bx + barPt, by)
    .stroke('#111111');
  doc
    .lineWidth(1)
    .moveTo(bx, by - 4)
    .lineTo(bx, by + 2)
    .moveTo(bx + barPt, by - 4)
    .lineTo(bx + barPt, by + 2)
    .stroke();
  doc
    .fillColor('#111111')
    .fontSize(7)
    .text(barM >= 1000 ? `${barM / 1000} km` : `${barM} m`, bx + barPt + 4, by - 4, { lineBreak: false });
  const nx = frame.x + frame.width - 18;
  const ny = frame.y + 12;
  doc.polygon([nx, ny], [nx - 6, ny + 18], [nx, ny + 13], [nx + 6, ny + 18]).fill('#111111');
  doc
    .fillColor('#111111')
    .fontSize(8)
    .text(content.legend.north, nx - 3, ny + 20, { lineBreak: false });

  doc.restore();
  doc.lineWidth(0.8).rect(frame.x, frame.y, frame.width, frame.height).stroke('#333333');

  // Legend under the frame.
  const ly = frame.y + frame.height + 8;
  let lx = frame.x;
  const item = (draw: () => void, text: string) => {
    draw();
    doc
      .fillColor('#222222')
      .fontSize(7.5)
      .text(text, lx + 16, ly - 1, { lineBreak: false });
    lx += 22 + doc.widthOfString(text) + 12;
  };
  item(
    () =>
      doc
        .lineWidth(2.5)
        .moveTo(lx, ly + 3)
        .lineTo(lx + 12, ly + 3)
        .stroke(TRACE_COLOUR),
    content.legend.trace,
  );
  item(() => doc.circle(lx + 6, ly + 3, 3.5).fill('#1a9850'), content.legend.start);
  item(() => doc.circle(lx + 6, ly + 3, 3.5).fill('#313695'), content.legend.end);
  item(
    () =>
      doc
        .lineWidth(1.5)
        .circle(lx + 6, ly + 3, 4.5)
        .stroke('#111111'),
    content.legend.event,
  );
  item(
    () =>
      doc
        .lineWidth(0.6)
        .rect(lx + 3.5, ly + 0.5, 5, 5)
        .fillAndStroke('#ffffff', '#444444'),
    content.legend.stop,
  );
  item(
    () =>
      doc
        .lineWidth(0.6)
        .circle(lx + 6, ly + 3, 4)
        .fillAndStroke('#d3e2f4', '#5b84b8'),
    content.legend.stand,
  );
  item(
    () =>
      doc
        .lineWidth(0.6)
        .rect(lx + 1, ly - 1, 10, 8)
        .fillAndStroke('#dde7d6', '#93a888'),
    content.legend.zone,
  );
}
