import { createHash } from 'node:crypto';
import { AppError, type Caller, principalOf, withQuery } from '@vigia/core';
import type { Database } from '@vigia/db';
import type { FastifyInstance } from 'fastify';
import { violationIdSchema } from '../violations/violation-query.js';
import type { ViolationStore } from '../violations/violation-store.js';
import { newNoticeCode, noticeCodeSchema, verifyQuerySchema } from './notice-code.js';
import { noticeMessages } from './notice-messages.js';
import { renderNotice } from './notice-pdf.js';
import { type LonLat, NoticeStore } from './notice-store.js';
import { packTimeZone } from './notice-time-zone.js';

/**
 * Issuing a notice is an enforcement act (Belém Art. 55 V names the agent): the regulator and
 * enforcement issue them, and the admin. Operators and dispatchers read their violations through
 * `GET /v1/violations/:id` and are served the notice by the agency; they do not issue official
 * documents about themselves.
 */
const issue = { config: { access: ['admin', 'regulator', 'enforcement'] as Caller[] } };
/** Anyone holding a printed notice may check it: no token, and an answer that confirms, nothing more. */
const verify = { config: { access: 'public' as const } };

export async function registerNoticeRoutes(
  app: FastifyInstance,
  deps: { db: Database; violations: ViolationStore; publicUrl: () => string },
): Promise<void> {
  const store = new NoticeStore(deps.db);

  // Every download issues a new notice (its own code, time and issuer): each copy handed out is accounted for.
  app.get('/v1/violations/:id/notice.pdf', issue, async (req, reply) => {
    const principal = principalOf(req);
    const id = violationIdSchema.parse((req.params as { id: string }).id);
    await deps.violations.get(principal, id); // 404 for an unknown violation, or one outside the caller's scope
    const facts = await store.facts(id);
    if (!facts) throw new AppError('NOT_FOUND', `No violation '${id}'`, 404);
    const trace = await store.trace(facts);
    const places = await store.placesNear(facts.pack, boxAround(trace, facts));
    const code = newNoticeCode();
    const issuedAt = new Date();
    const issuedBy = principal.kind === 'user' ? principal.userId : noticeMessages.admin;
    const pdf = await renderNotice({
      facts,
      trace,
      places,
      timeZone: packTimeZone(facts.pack),
      code,
      verifyUrl: `${deps.publicUrl()}/v1/notices/${code}`,
      issuedAt,
      issuedBy: principal.kind === 'user' ? `${(await store.userName(issuedBy)) ?? ''} (${issuedBy})`.trim() : issuedBy,
    });
    const contentHash = createHash('sha256').update(pdf).digest('hex');
    await store.record({ code, violationId: id, contentHash, issuedAt, issuedBy });
    req.log.info({ code: 'NOTICE_ISSUED', notice: code, violationId: id, issuedBy }, 'enforcement notice issued');
    return reply
      .header('content-type', 'application/pdf')
      .header('content-disposition', `attachment; filename="auto-de-infracao-${code}.pdf"`)
      .header('vigia-notice-code', code)
      .header('vigia-notice-sha256', contentHash)
      .send(pdf);
  });

  /**
   * Authenticity of a notice, for anyone: the code printed on it finds the record; `?sha256=`
   * (the hex SHA-256 of the PDF file held) says whether the copy is the one issued. The answer
   * repeats only what is printed on the notice itself (violation id, plate, issue time) and the
   * hash: no operator, driver, place or penalty, so a code found on a discarded notice reveals
   * nothing the paper did not.
   */
  app.get('/v1/notices/:code', withQuery(verify, verifyQuerySchema), async (req) => {
    const parsed = noticeCodeSchema.safeParse((req.params as { code: string }).code);
    if (!parsed.success) throw new AppError('INVALID_NOTICE_CODE', 'Not a notice verification code', 400);
    const query = verifyQuerySchema.parse(req.query);
    const notice = await store.find(parsed.data);
    if (!notice) throw new AppError('NOT_FOUND', 'No notice has this verification code', 404);
    const unchanged = query.sha256 === undefined ? null : query.sha256 === notice.contentHash;
    return {
      code: notice.code,
      violationId: notice.violationId,
      plate: notice.plate,
      issuedAt: notice.issuedAt,
      sha256: notice.contentHash,
      authentic: unchanged !== false,
      unchanged,
    };
  });
}

/** The box the map's context places are looked up in: the trace and the violation's point, ~1 km wider. */
function boxAround(trace: LonLat[], f: { lat: number | null; lon: number | null }) {
  const pts: LonLat[] = f.lat !== null && f.lon !== null ? [...trace, [f.lon, f.lat]] : trace;
  const margin = 0.01;
  if (pts.length === 0) return { minLon: 0, minLat: 0, maxLon: 0, maxLat: 0 };
  const lons = pts.map((p) => p[0]);
  const lats = pts.map((p) => p[1]);
  return {
    minLon: Math.min(...lons) - margin,
    minLat: Math.min(...lats) - margin,
    maxLon: Math.max(...lons) + margin,
    maxLat: Math.max(...lats) + margin,
  };
}
