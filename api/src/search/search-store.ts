import type { Principal } from '@vigia/core';
import type { Queryable } from '@vigia/db';
import { requireRead } from '../registry/access.js';
import {
  type CollectionSpec,
  foldAccents,
  scopeCondition,
  searchCondition,
  substringPattern,
  withoutPunctuation,
  withoutPunctuationText,
} from '../registry/collection.js';
import { driversSpec, operatorsSpec, standsSpec, stopsSpec, vehiclesSpec } from '../registry/collections.js';
import type { SearchItem, SearchKind, SearchQuery } from './search-query.js';

/**
 * What `GET /v1/search` looks in, per kind: the registry collection (its access and operator
 * scope, exactly as its list route applies them), the columns matched as a substring, the
 * columns an exact match ranks first (an id, a plate, a permit number, a CNPJ, a CNH), and the
 * label, detail and position of a result. SQL only; the table is aliased `t`.
 */
interface KindSource {
  kind: SearchKind;
  spec: CollectionSpec<never>;
  from: string;
  searched: readonly string[];
  exact: readonly string[];
  label: string;
  detail: string;
  lat: string;
  lon: string;
  /** The operator a vehicle or driver belongs to, or the operator itself: the dashboard shows its fleet. */
  operator: string;
}

/** A stop or a stand: its table is the collection's name. */
function place(
  kind: 'stop' | 'stand',
  spec: CollectionSpec<never>,
  detail: string,
  at: { lat: string; lon: string },
): KindSource {
  return {
    kind,
    spec,
    from: `${spec.table} t`,
    searched: ['t.name', 't.id'],
    exact: ['t.id'],
    label: 't.name',
    detail,
    ...at,
    operator: 'NULL::text',
  };
}

const sources: KindSource[] = [
  {
    kind: 'vehicle',
    spec: vehiclesSpec as CollectionSpec<never>,
    from: 'vehicles t LEFT JOIN operators o ON o.id = t.operator_id LEFT JOIN vehicle_live l ON l.vehicle_id = t.id',
    searched: ['t.plate', 't.permit_number', 't.id'],
    exact: ['t.plate', 't.permit_number', 't.id'],
    label: 't.plate',
    detail: "concat_ws(' · ', t.permit_number, coalesce(o.name, t.operator_id), t.pack)",
    lat: 'l.lat',
    lon: 'l.lon',
    operator: 't.operator_id',
  },
  {
    kind: 'operator',
    spec: operatorsSpec as CollectionSpec<never>,
    from: 'operators t',
    searched: ['t.name', 't.document', 't.id'],
    exact: ['t.document', 't.id'],
    label: 't.name',
    detail: "concat_ws(' · ', t.document, t.id, t.pack)",
    lat: 'NULL::float8',
    lon: 'NULL::float8',
    operator: 't.id',
  },
  {
    kind: 'driver',
    spec: driversSpec as CollectionSpec<never>,
    from: 'drivers t LEFT JOIN operators o ON o.id = t.operator_id',
    searched: ['t.name', 't.licence_number', 't.document', 't.id'],
    exact: ['t.licence_number', 't.document', 't.id'],
    label: 't.name',
    detail: "concat_ws(' · ', t.licence_number, coalesce(o.name, t.operator_id))",
    lat: 'NULL::float8',
    lon: 'NULL::float8',
    operator: 't.operator_id',
  },
  // Reference places, shared by every role: found by name or id, located where they are.
  place('stop', stopsSpec as CollectionSpec<never>, "concat_ws(' · ', t.id, t.source)", { lat: 't.lat', lon: 't.lon' }),
  place('stand', standsSpec as CollectionSpec<never>, "concat_ws(' · ', t.kind, t.places::text, t.pack)", {
    // A point stand's centre, else the first vertex of the polygon's ring: metres from its places.
    lat: "(coalesce(t.geometry->'coordinates'->>1, t.geometry->'coordinates'->0->0->>1))::float8",
    lon: "(coalesce(t.geometry->'coordinates'->>0, t.geometry->'coordinates'->0->0->>0))::float8",
  }),
];

/** Text as compared for an exact match: accents and case folded, punctuation dropped. */
const bare = (expression: string) => `upper(${withoutPunctuation(foldAccents(expression))})`;

interface Hit extends Record<string, unknown> {
  kind: SearchKind;
  id: string;
  label: string;
  detail: string;
  lat: number | null;
  lon: number | null;
  operatorId: string | null;
}

export class SearchStore {
  constructor(private readonly db: Queryable) {}

  /**
   * Every kind the caller may read, best first: an exact id, plate, permit, CNPJ or CNH match,
   * then labels that start with `q`, then any substring match; ties by kind, then label.
   */
  async search(principal: Principal, query: SearchQuery): Promise<SearchItem[]> {
    const params: unknown[] = [];
    params.push(withoutPunctuationText(query.q) || query.q);
    const exactParam = `upper(${foldAccents('$1')})`;
    params.push(`${substringPattern(query.q).slice(1)}`);
    const prefixParam = foldAccents('$2');
    params.push(query.limit);
    const limitParam = '$3';
    const parts = sources.map((source, order) => {
      const scope = requireRead(principal, source.spec.access);
      const where = ['t.retired_at IS NULL', searchCondition(source.searched, query.q, params)];
      const scoped = scopeCondition(source.spec, scope, params);
      if (scoped) where.push(scoped);
      const exact = source.exact.map((c) => `${bare(c)} = ${exactParam}`).join(' OR ');
      const rank = `CASE WHEN ${exact} THEN 0 WHEN ${foldAccents(source.label)} ILIKE ${prefixParam} THEN 1 ELSE 2 END`;
      return `(SELECT '${source.kind}' AS kind, t.id, ${source.label} AS label, ${source.detail} AS detail,
          ${source.lat} AS lat, ${source.lon} AS lon, ${source.operator} AS "operatorId", ${rank} AS rank, ${order} AS kind_order
        FROM ${source.from} WHERE ${where.join(' AND ')}
        ORDER BY rank, ${source.label}, t.id LIMIT ${limitParam})`;
    });
    const { rows } = await this.db.query<Hit>(
      `SELECT kind, id, label, detail, lat, lon, "operatorId" FROM (${parts.join(' UNION ALL ')}) hits
       ORDER BY rank, kind_order, label, id LIMIT ${limitParam}`,
      params,
    );
    return rows.map(({ kind, id, label, detail, lat, lon, operatorId }) => ({
      kind,
      id,
      label,
      detail,
      ...(typeof lat === 'number' && typeof lon === 'number' ? { lat, lon } : {}),
      ...(operatorId ? { operatorId } : {}),
    }));
  }
}
