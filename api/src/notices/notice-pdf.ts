import { localDateTime, measuredLabel } from '@vigia/rules';
import PDFDocument from 'pdfkit';
import { drawEvidenceMap, type MapFrame } from './notice-map.js';
import { noticeMessages as msg } from './notice-messages.js';
import type { LonLat, MapPlace, NoticeFacts } from './notice-store.js';

/**
 * The enforcement notice as a two-page A4 PDF: page 1 the record an *auto de infração* needs
 * (who, what, where, when, legal basis, measured values, penalty, recidivism) and the
 * verification code; page 2 the evidence map. Pure: the same inputs give the same document
 * content (pdfkit adds its own file id, which is why the stored hash is of the bytes issued).
 */

export interface NoticeInput {
  facts: NoticeFacts;
  trace: LonLat[];
  places: MapPlace[];
  timeZone: string;
  code: string;
  verifyUrl: string;
  issuedAt: Date;
  /** Who downloaded it: the user's name/id, or the administrator. */
  issuedBy: string;
}

/** Where page 2 draws the map (PDF points from the top left; at 72 dpi, pixels). */
export const MAP_FRAME: MapFrame = { x: 40, y: 110, width: 515, height: 430 };
const LEFT = 40;
const LABEL_W = 165;
const VALUE_X = LEFT + LABEL_W + 8;
const VALUE_W = 555 - VALUE_X;
/** Measured values printed (the rest stay in the API's record: the page must not overflow). */
const MEASURED_MAX = 14;
const VALUE_MAX_CHARS = 240;

const brl = new Intl.NumberFormat('pt-BR', { style: 'currency', currency: 'BRL' });
const num = new Intl.NumberFormat('pt-BR', { maximumFractionDigits: 4 });
const pad = (n: number) => String(n).padStart(2, '0');

/** `06/03/2026 19:59:00 (UTC-03:00)`: the wall clock of the pack's zone, as an officer writes it. */
export function localStamp(at: Date, timeZone: string): string {
  const l = localDateTime(at, timeZone);
  const off = Math.abs(l.offsetMinutes);
  const sign = l.offsetMinutes < 0 ? '-' : '+';
  return `${pad(l.day)}/${pad(l.month)}/${l.year} ${pad(l.hour)}:${pad(l.minute)}:${pad(l.second)} (UTC${sign}${pad(Math.floor(off / 60))}:${pad(off % 60)})`;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.length > 0 ? v : null);
const numberOf = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const clip = (s: string) => (s.length > VALUE_MAX_CHARS ? `${s.slice(0, VALUE_MAX_CHARS - 1)}…` : s);

function measuredText(v: unknown): string {
  if (typeof v === 'number') return num.format(v);
  if (typeof v === 'boolean') return v ? msg.yes : msg.no;
  if (typeof v === 'string') return v;
  return JSON.stringify(v);
}

function penaltyRows(p: Record<string, unknown>): [string, string][] {
  const units = numberOf(p.units);
  const unit = str(p.unit);
  const amount = numberOf(p.amountBrl);
  const rows: [string, string][] = [
    [msg.fields.amountUnits, units !== null && unit ? `${num.format(units)} ${unit}` : msg.noFine],
    [
      msg.fields.amountBrl,
      amount !== null
        ? `${brl.format(amount)}${numberOf(p.unitValueBrl) !== null && unit ? ` (1 ${unit} = ${brl.format(numberOf(p.unitValueBrl) ?? 0)}${str(p.unitValueFrom) ? `, ${msg.since(str(p.unitValueFrom) ?? '')}` : ''})` : ''}`
        : msg.noFine,
    ],
  ];
  if (str(p.group)) rows.push([msg.fields.group, str(p.group) ?? '']);
  if (str(p.item)) rows.push([msg.fields.item, str(p.item) ?? '']);
  if (p.apprehension === true) rows.push([msg.fields.apprehension, msg.yes]);
  if (p.opensCancellation === true) rows.push([msg.fields.cancellation, msg.yes]);
  return rows;
}

function recidivismRows(r: Record<string, unknown>): [string, string][] {
  const count = numberOf(r.count);
  if (count === null) return [[msg.fields.priorCount, msg.unknown]];
  const rows: [string, string][] = [[msg.fields.priorCount, String(count)]];
  const days = numberOf(r.windowDays);
  if (days !== null)
    rows.push([
      msg.fields.window,
      `${msg.days(days)}${str(r.windowStart) ? `, ${msg.since(str(r.windowStart) ?? '')}` : ''}`,
    ]);
  const esc = r.escalation as { basis?: unknown; detail?: unknown } | null | undefined;
  rows.push([msg.fields.escalation, esc ? `${str(esc.basis) ?? ''} ${str(esc.detail) ?? ''}`.trim() : msg.none]);
  const amount = numberOf(r.amountBrl);
  if (amount !== null) rows.push([msg.fields.amountAfter, brl.format(amount)]);
  return rows;
}

export async function renderNotice(input: NoticeInput): Promise<Buffer> {
  const { facts: f, timeZone } = input;
  const doc = new PDFDocument({
    size: 'A4',
    margin: 40,
    info: {
      Title: `${msg.title} ${input.code}`,
      Author: 'Vigia',
      Subject: f.id,
      CreationDate: input.issuedAt,
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  let y = 40;
  const heading = (text: string) => {
    y += 6;
    doc.font('Helvetica-Bold').fontSize(10).fillColor('#1d3557').text(text.toUpperCase(), LEFT, y);
    y += 14;
    doc
      .lineWidth(0.5)
      .moveTo(LEFT, y - 2)
      .lineTo(555, y - 2)
      .stroke('#a8b4c4');
    y += 2;
  };
  const field = (label: string, value: string | null) => {
    const v = clip(value ?? msg.unknown);
    doc.font('Helvetica-Bold').fontSize(8.5).fillColor('#333333');
    const hl = doc.heightOfString(label, { width: LABEL_W });
    doc.text(label, LEFT, y, { width: LABEL_W });
    doc.font('Helvetica').fontSize(8.5).fillColor('#000000');
    const hv = doc.heightOfString(v, { width: VALUE_W });
    doc.text(v, VALUE_X, y, { width: VALUE_W });
    y += Math.max(hl, hv) + 3;
  };

  // Header and code.
  doc.font('Helvetica-Bold').fontSize(14).fillColor('#000000').text(msg.title, LEFT, y, { width: 515 });
  y += 20;
  doc
    .font('Helvetica')
    .fontSize(9)
    .text(msg.subtitle(msg.services[f.pack] ?? f.pack), LEFT, y);
  y += 16;
  doc.lineWidth(1).rect(LEFT, y, 515, 34).stroke('#1d3557');
  doc
    .font('Helvetica-Bold')
    .fontSize(11)
    .text(`${msg.fields.code}: ${input.code}`, LEFT + 8, y + 5);
  doc
    .font('Helvetica')
    .fontSize(8)
    .text(`${msg.fields.verifyAt}: ${input.verifyUrl}`, LEFT + 8, y + 20, { width: 500 });
  y += 40;

  heading(msg.sections.infraction);
  field(msg.fields.violationId, f.id);
  field(msg.fields.legalBasis, f.legalBasis.join('; '));
  field(msg.fields.description, f.description);
  field(msg.fields.rule, f.ruleId);
  field(msg.fields.confidence, msg.confidence[f.confidence] ?? f.confidence);
  field(msg.fields.status, msg.status[f.status] ?? f.status);

  heading(msg.sections.vehicle);
  field(msg.fields.plate, f.plate);
  field(msg.fields.makeColour, [f.make, f.colour].filter(Boolean).join(' / ') || null);
  field(msg.fields.permit, f.permitNumber);

  heading(msg.sections.parties);
  field(
    msg.fields.operator,
    f.operatorName ? `${f.operatorName}${f.operatorDocument ? ` (${f.operatorDocument})` : ''}` : f.operatorId,
  );
  field(
    msg.fields.driver,
    f.driverName ? `${f.driverName}${f.driverLicence ? ` (CNH ${f.driverLicence})` : ''}` : f.driverId,
  );

  heading(msg.sections.place);
  const place = f.place;
  field(
    msg.fields.namedPlace,
    place?.name ? `${place.name}${place.kind ? ` (${msg.placeKinds[place.kind] ?? place.kind})` : ''}` : null,
  );
  field(msg.fields.coordinates, f.lat !== null && f.lon !== null ? `${f.lat.toFixed(6)}, ${f.lon.toFixed(6)}` : null);

  heading(msg.sections.time);
  field(msg.fields.started, localStamp(f.startedAt, timeZone));
  field(msg.fields.ended, f.endedAt ? localStamp(f.endedAt, timeZone) : msg.ongoing);
  field(msg.fields.timeZone, timeZone);

  heading(msg.sections.measured);
  const measured = Object.entries(f.measured ?? {}).slice(0, MEASURED_MAX);
  if (measured.length === 0) field('—', msg.unknown);
  // Named from the rules' catalogue (the CSV export uses the same names), not by their raw keys.
  for (const [k, v] of measured) field(measuredLabel(k), measuredText(v));

  heading(msg.sections.penalty);
  for (const [k, v] of penaltyRows(f.penalty ?? {})) field(k, v);

  heading(msg.sections.recidivism);
  for (const [k, v] of recidivismRows(f.recidivism ?? {})) field(k, v);

  const footer = (page: number) => {
    // Below the bottom margin: pdfkit would start a new page for text there unless told otherwise.
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0;
    doc
      .font('Helvetica')
      .fontSize(7)
      .fillColor('#555555')
      .text(
        `${msg.fields.code} ${input.code} · ${msg.fields.issued} ${localStamp(input.issuedAt, timeZone)} · ${msg.fields.issuedBy} ${input.issuedBy} · ${msg.page(page, 2)}`,
        LEFT,
        800,
        { width: 515, lineBreak: false },
      );
    doc.page.margins.bottom = bottom;
  };
  footer(1);

  // Page 2: the evidence map and how to verify.
  doc.addPage();
  doc.font('Helvetica-Bold').fontSize(12).fillColor('#000000').text(msg.sections.evidence, LEFT, 50, { width: 515 });
  doc
    .font('Helvetica')
    .fontSize(8.5)
    .text(
      `${localStamp(f.evidenceFrom, timeZone)} — ${localStamp(f.evidenceTo, timeZone)} · ${f.plate ?? f.vehicleId}`,
      LEFT,
      70,
      { width: 515 },
    );
  drawEvidenceMap(doc, MAP_FRAME, {
    trace: input.trace,
    event: f.lat !== null && f.lon !== null ? [f.lon, f.lat] : null,
    places: input.places,
    involvedPlaceId: place?.id ?? null,
    legend: msg.mapLegend,
  });
  y = MAP_FRAME.y + MAP_FRAME.height + 30;
  heading(msg.sections.verification);
  field(msg.fields.code, input.code);
  field(msg.fields.verifyAt, input.verifyUrl);
  field(msg.fields.issued, localStamp(input.issuedAt, timeZone));
  field(msg.fields.issuedBy, input.issuedBy);
  doc
    .font('Helvetica')
    .fontSize(8)
    .fillColor('#333333')
    .text(msg.verificationNote, LEFT, y + 4, { width: 515 });
  footer(2);

  doc.end();
  return done;
}
