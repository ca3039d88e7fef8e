import type { Queryable } from '@vigia/db';

/** The figures of one local hour, or of the whole range (`hour` and `start` null). */
export interface DispatchReportFigures {
  /** Bookings taken in the hour. */
  readonly bookings: number;
  /** Of those, offered to a taxi at least once. */
  readonly offered: number;
  /** Of those, accepted by the first taxi offered it. */
  readonly acceptedFirstOffer: number;
  /** acceptedFirstOffer / offered, 0..1 (null: none offered). */
  readonly firstOfferAcceptedShare: number | null;
  /** Accepted at all (by an offer or assigned manually). */
  readonly accepted: number;
  /** Seconds from taking the booking to its acceptance: median and 90th percentile (null: none accepted). */
  readonly acceptP50S: number | null;
  readonly acceptP90S: number | null;
  /** Seconds from acceptance to the taxi at the pickup (arrived, or on board when arrival was not seen): median. */
  readonly pickupP50S: number | null;
  readonly expired: number;
  readonly cancelled: number;
}

export interface DispatchReportHour extends DispatchReportFigures {
  /** The local hour, `YYYY-MM-DDTHH:00` in the report's time zone. */
  readonly hour: string;
  /** The instant the local hour starts. */
  readonly start: string;
}

export interface DispatchReportQuery {
  readonly from: Date;
  readonly to: Date;
  readonly timeZone: string;
  /** Only these operators' bookings; null: every operator's. */
  readonly operatorIds: readonly string[] | null;
}

interface FiguresRow {
  hour: string | null;
  start: Date | string | null;
  bookings: number;
  offered: number;
  accepted_first_offer: number;
  accepted: number;
  accept_p50: number | null;
  accept_p90: number | null;
  pickup_p50: number | null;
  expired: number;
  cancelled: number;
}

const seconds = (v: number | string | null): number | null => (v === null ? null : Math.round(Number(v)));

function figures(r: FiguresRow): DispatchReportFigures {
  return {
    bookings: r.bookings,
    offered: r.offered,
    acceptedFirstOffer: r.accepted_first_offer,
    firstOfferAcceptedShare: r.offered > 0 ? Math.round((r.accepted_first_offer / r.offered) * 10_000) / 10_000 : null,
    accepted: r.accepted,
    acceptP50S: seconds(r.accept_p50),
    acceptP90S: seconds(r.accept_p90),
    pickupP50S: seconds(r.pickup_p50),
    expired: r.expired,
    cancelled: r.cancelled,
  };
}

/**
 * The cooperative's dispatch report (issue 10 item 6), SQL only: the bookings taken in
 * [from, to), per local hour of taking (in `timeZone`) and in total, in one statement (the
 * total's medians are over the whole range, not of the hours' medians). Hours without a booking
 * are left out.
 */
export class DispatchReportStore {
  constructor(private readonly db: Queryable) {}

  /** The packs of these operators (every operator's: null), distinct; an unknown id has none. */
  async packsOf(operatorIds: readonly string[] | null): Promise<string[]> {
    const { rows } = await this.db.query<{ pack: string }>(
      'SELECT DISTINCT pack FROM operators WHERE $1::text[] IS NULL OR id = ANY($1::text[]) ORDER BY pack',
      [operatorIds],
    );
    return rows.map((r) => r.pack);
  }

  async report(q: DispatchReportQuery): Promise<{ hours: DispatchReportHour[]; totals: DispatchReportFigures }> {
    const { rows } = await this.db.query<FiguresRow & { is_total: number }>(
      `WITH b AS (
         SELECT bk.created_at, bk.accepted_at, bk.arrived_at, bk.on_board_at, bk.status,
                date_trunc('hour', bk.created_at AT TIME ZONE $3) AS local_hour,
                o1.id IS NOT NULL AS offered,
                o1.response = 'accepted' AS first_accepted
         FROM bookings bk
         LEFT JOIN booking_offers o1 ON o1.booking_id = bk.id AND o1.seq = 1
         WHERE bk.created_at >= $1 AND bk.created_at < $2
           AND ($4::text[] IS NULL OR bk.operator_id = ANY($4::text[]))
       )
       SELECT to_char(local_hour, 'YYYY-MM-DD"T"HH24:00') AS hour,
              local_hour AT TIME ZONE $3 AS start,
              GROUPING(local_hour) AS is_total,
              count(*)::int AS bookings,
              count(*) FILTER (WHERE offered)::int AS offered,
              count(*) FILTER (WHERE first_accepted)::int AS accepted_first_offer,
              count(accepted_at)::int AS accepted,
              percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM accepted_at - created_at)) AS accept_p50,
              percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM accepted_at - created_at)) AS accept_p90,
              percentile_cont(0.5) WITHIN GROUP (
                ORDER BY extract(epoch FROM coalesce(arrived_at, on_board_at) - accepted_at)
              ) AS pickup_p50,
              count(*) FILTER (WHERE status = 'expired')::int AS expired,
              count(*) FILTER (WHERE status = 'cancelled')::int AS cancelled
       FROM b
       GROUP BY GROUPING SETS ((local_hour), ())
       ORDER BY GROUPING(local_hour), local_hour`,
      [q.from, q.to, q.timeZone, q.operatorIds],
    );
    const hours: DispatchReportHour[] = [];
    let totals: DispatchReportFigures | undefined;
    for (const r of rows) {
      if (Number(r.is_total) === 1) totals = figures(r);
      else if (r.hour !== null && r.start !== null)
        hours.push({ hour: r.hour, start: new Date(r.start).toISOString(), ...figures(r) });
    }
    return { hours, totals: totals ?? figures(emptyRow) };
  }
}

const emptyRow: FiguresRow = {
  hour: null,
  start: null,
  bookings: 0,
  offered: 0,
  accepted_first_offer: 0,
  accepted: 0,
  accept_p50: null,
  accept_p90: null,
  pickup_p50: null,
  expired: 0,
  cancelled: 0,
};
