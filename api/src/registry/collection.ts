import { randomBytes } from 'node:crypto';
import { AppError, generateToken, hashToken, type Principal, type TokenKind } from '@vigia/core';
import type { Database, Queryable } from '@vigia/db';
import { z } from 'zod';
import { type Access, type ReadScope, requireRead, requireWrite } from './access.js';
import { translateDbError } from './db-errors.js';
import { GEOMETRY_ISSUE } from './geojson.js';
import { pageQuerySchema } from './schemas.js';

/**
 * One mechanism for every registry collection: a spec maps the API's camelCase fields to the
 * table's columns, names the list filters, the access rules and the operator scope, and the
 * store below does list (filters + keyset paging), get, create (one or many, all or nothing,
 * through `jsonb_populate_recordset` so PostgreSQL does the typing), patch and retire.
 */
export interface CollectionSpec<S extends z.ZodObject> {
  /** URL segment and error wording, e.g. `vehicles`. */
  name: string;
  table: string;
  /** Prefix of generated ids, e.g. `veh`. */
  idPrefix: string;
  createSchema: S;
  /** API field → column, for every field of `createSchema`. */
  columns: Record<Exclude<keyof z.output<S>, 'id'> & string, string>;
  /** Query parameter → column, equality filters of `GET /v1/<name>`. */
  filters: Record<string, string>;
  /**
   * How a filter's value is read from the query, where plain bounded text is not enough: a
   * plate typed `abc-1234` is the stored `ABC1234`.
   */
  filterValues?: Record<string, z.ZodType<string>>;
  /**
   * The column(s) `q=` searches: a case- and accent-insensitive substring (a dispatcher types
   * "rodoviaria" for "Rodoviária"), also without punctuation ("abc-12" finds ABC1234). Without
   * it `q` is an unknown filter (400 UNKNOWN_FILTER, like any filter the collection lacks).
   */
  search?: string | readonly string[];
  access: Access;
  /**
   * How operator-scoped roles (operator, dispatcher) read the collection: `{ column }` holds the
   * operator a row belongs to, and they see their operators' rows only; `'shared'` is reference
   * data that every role allowed to read it reads in full (stops, zones, holidays ...). A
   * collection those roles may read must say which: it is a start-up error otherwise.
   */
  scope?: { column: string } | 'shared';
  /** Issue a token on create (returned once) and keep its hash in `token_hash`. */
  token?: TokenKind;
  /**
   * For records that say themselves since when they are in force (a contract's `validFrom`
   * date): the instant their first version starts, instead of the moment of creation.
   */
  inForceFrom?: (record: Record<string, unknown>) => string | undefined;
  /**
   * Checks the schema cannot make: against knowledge outside the table (a device's profile must
   * exist for its protocol). Given each record created and, on PATCH, the stored record with the
   * body applied plus the fields the body names. A problem is a 400 with the issue's code.
   */
  check?: (record: Record<string, unknown>, changed: ReadonlySet<string>) => CheckIssue[];
}

/** A problem `CollectionSpec.check` found: the field, a code for the API error, and what is wrong. */
export interface CheckIssue {
  path: string;
  code: string;
  message: string;
}

/** Check problems as the API error: the (first) issue's own code, every issue in `details`. */
function checkError(issues: (CheckIssue & { index?: number })[]): AppError {
  const [first] = issues;
  return new AppError(
    first?.code ?? 'VALIDATION_FAILED',
    first?.message ?? 'invalid',
    400,
    issues.map(({ code: _, ...d }) => d),
  );
}

export type Row = Record<string, unknown>;

/**
 * A PATCH schema changes only what the body names, so it has no defaults: zod 4 still fills a
 * `.default()` inside `.partial()`, which turned `PATCH {colour}` into "and status active,
 * driverIds [], tachographLinked false". Only the top level is stripped: a field given in full
 * (a contract's schedule) still gets its items' defaults.
 */
export function patchSchemaOf(createSchema: z.ZodObject): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  for (const [field, schema] of Object.entries(createSchema.shape as Record<string, z.ZodType>)) {
    if (field === 'id') continue;
    shape[field] = (schema instanceof z.ZodDefault ? (schema.removeDefault() as z.ZodType) : schema).optional();
  }
  return z.strictObject(shape);
}

/** Schema issues as the API error: `INVALID_GEOMETRY` when only the geometry is wrong. */
function schemaError(
  issues: { index?: number; path: string; message: string; geometry: boolean }[],
  message: string,
): AppError {
  const details = issues.map(({ geometry: _, ...d }) => d);
  if (issues.every((i) => i.geometry)) {
    const first = issues[0];
    const where = first && first.path !== 'geometry' ? `${first.path}: ` : '';
    return new AppError(GEOMETRY_ISSUE, `${where}${first?.message ?? 'The geometry is not valid'}`, 400, details);
  }
  return new AppError('VALIDATION_FAILED', message, 400, details);
}

const issuesOf = (error: z.ZodError) =>
  error.issues.map((i) => ({
    path: i.path.join('.'),
    message: i.message,
    // The geometry's own checks, and the GeoJSON schema's (closed rings, lon/lat ranges).
    geometry:
      i.path[0] === 'geometry' ||
      (i.code === 'custom' && (i.params as { code?: unknown } | undefined)?.code === GEOMETRY_ISSUE),
  }));

const MAX_BATCH = 50_000;

/** When a created record came into force, if before now; at most ten years back. */
const validFromSchema = z.iso
  .datetime({ offset: true })
  .refine((s) => Date.parse(s) <= Date.now() + 60_000, 'validFrom may not be in the future')
  .refine((s) => Date.parse(s) >= Date.now() - 10 * 366 * 86_400_000, 'validFrom is at most ten years back');

/** A filter's value: bounded text without control characters (PostgreSQL refuses a NUL). */
export const filterTextSchema = z
  .string()
  .trim()
  .max(200)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it refuses
  .regex(/^[^\u0000-\u001f\u007f]*$/, 'control characters are not allowed');

/** A plate as typed (any case, with or without the dash or a space) as stored: `ABC1234`. */
export const plateFilterSchema = filterTextSchema.transform((p) => p.toUpperCase().replace(/[-\s]/g, ''));

/**
 * The query schema of `GET /v1/<name>`: paging, the spec's filters and `q` where it searches;
 * declared on the route, so any other key is a 400 UNKNOWN_FILTER (core/src/http/query-filters.ts).
 */
export function listQuerySchemaOf(spec: CollectionSpec<z.ZodObject>) {
  const shape: Record<string, z.ZodOptional<z.ZodType<string>>> = {};
  for (const param of Object.keys(spec.filters))
    shape[param] = (spec.filterValues?.[param] ?? filterTextSchema).optional();
  if (spec.search) shape.q = filterTextSchema.optional();
  return pageQuerySchema.extend(shape).transform((query) => {
    const { limit, cursor, includeRetired, ...filters } = query as z.output<typeof pageQuerySchema> &
      Record<string, string | undefined>;
    return { page: { limit, cursor, includeRetired: includeRetired === 'true' }, filters };
  });
}

/** Punctuation of plates, CNPJs, CPFs and permit numbers, ignored when matching `q`. */
const PUNCTUATION = '-./ ';

/** `q` without the punctuation it is matched without. */
export function withoutPunctuationText(q: string): string {
  return [...q].filter((c) => !PUNCTUATION.includes(c)).join('');
}

/** Text as a LIKE pattern for a substring: its wildcards escaped. */
export function substringPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The SQL condition "one of `columns` holds `q`", accent- and case-insensitive, and with the
 * punctuation dropped on both sides ("12345678" finds the CNPJ 12.345.678/0001-90, "abc-12" the
 * plate ABC1234, "av paulista" the stop "Av. Paulista"); the pattern is pushed onto `params`.
 * The registry's `q=` and `GET /v1/search` match with it alike.
 */
export function searchCondition(columns: readonly string[], q: string, params: unknown[]): string {
  const bare = withoutPunctuationText(q);
  // Nothing but punctuation: matched as typed, not as "anything".
  params.push(substringPattern(bare || q));
  const pattern = foldAccents(`$${params.length}`);
  const column = (c: string) => (bare ? withoutPunctuation(foldAccents(c)) : foldAccents(c));
  return `(${columns.map((c) => `${column(c)} ILIKE ${pattern}`).join(' OR ')})`;
}

/** An SQL text expression without the punctuation `q` ignores. */
export function withoutPunctuation(expression: string): string {
  return `translate(${expression}, '${PUNCTUATION}', '')`;
}

/**
 * The rows of `spec`'s table (aliased `t`) a reader with `scope` may see, as an SQL condition
 * (undefined: all); the operator ids are pushed onto `params`. The registry lists and
 * `GET /v1/search` narrow with it alike.
 */
export function scopeCondition(
  spec: Pick<CollectionSpec<z.ZodObject>, 'scope'>,
  scope: ReadScope,
  params: unknown[],
): string | undefined {
  if (scope.all || spec.scope === 'shared') return undefined;
  // Fail closed: a collection with no scope is not read by scoped roles (the constructor checks it).
  if (!spec.scope) return 'false';
  params.push(scope.operatorIds);
  return `t.${spec.scope.column} = ANY($${params.length}::text[])`;
}

const base64url = (s: string) => Buffer.from(s).toString('base64url');
const unbase64url = (s: string) => Buffer.from(s, 'base64url').toString();

export class CollectionStore<S extends z.ZodObject> {
  readonly patchSchema: z.ZodObject;
  private readonly select: string;

  constructor(
    readonly spec: CollectionSpec<S>,
    private readonly db: Database,
  ) {
    this.patchSchema = patchSchemaOf(spec.createSchema);
    const scopedRole = spec.access.read.some((r) => r === 'operator' || r === 'dispatcher');
    if (scopedRole && !spec.scope) {
      throw new Error(`Collection ${spec.name}: operators or dispatchers may read it, but its spec has no scope`);
    }
    const fields = Object.entries(spec.columns as Record<string, string>).map(([f, c]) => `t.${c} AS "${f}"`);
    this.select = [
      't.id AS "id"',
      ...fields,
      ...(spec.token ? ['t.token_issued_at AS "tokenIssuedAt"'] : []),
      't.created_at AS "createdAt"',
      't.updated_at AS "updatedAt"',
      't.retired_at AS "retiredAt"',
    ].join(', ');
  }

  newId(): string {
    return `${this.spec.idPrefix}_${randomBytes(6).toString('hex')}`;
  }

  private scopeClause(scope: ReadScope, params: unknown[]): string | undefined {
    return scopeCondition(this.spec, scope, params);
  }

  async list(
    principal: Principal,
    query: Record<string, string | undefined>,
    page: { limit: number; cursor?: string | undefined; includeRetired?: boolean },
    extra?: { select: string; join: string },
  ): Promise<{ items: Row[]; next: string | null }> {
    const scope = requireRead(principal, this.spec.access);
    const params: unknown[] = [];
    const where: string[] = [];
    if (!page.includeRetired) where.push('t.retired_at IS NULL');
    const scoped = this.scopeClause(scope, params);
    if (scoped) where.push(scoped);
    for (const [param, column] of Object.entries(this.spec.filters)) {
      const value = query[param];
      if (value === undefined || value === '') continue;
      params.push(value);
      where.push(`t.${column}::text = $${params.length}`);
    }
    const q = query.q?.trim();
    if (this.spec.search && q) {
      const columns = (typeof this.spec.search === 'string' ? [this.spec.search] : this.spec.search).map(
        (c) => `t.${c}`,
      );
      where.push(searchCondition(columns, q, params));
    }
    if (page.cursor) {
      params.push(unbase64url(page.cursor));
      where.push(`t.id > $${params.length}`);
    }
    params.push(page.limit + 1);
    const sql = `SELECT ${this.select}${extra ? `, ${extra.select}` : ''} FROM ${this.spec.table} t ${extra?.join ?? ''}
      ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY t.id LIMIT $${params.length}`;
    const { rows } = await this.db.query<Row>(sql, params);
    const more = rows.length > page.limit;
    const items = more ? rows.slice(0, page.limit) : rows;
    const lastId = items.at(-1)?.id;
    return { items, next: more && typeof lastId === 'string' ? base64url(lastId) : null };
  }

  async get(principal: Principal, id: string, extra?: { select: string; join: string }): Promise<Row> {
    const scope = requireRead(principal, this.spec.access);
    const params: unknown[] = [id];
    const scoped = this.scopeClause(scope, params);
    const { rows } = await this.db.query<Row>(
      `SELECT ${this.select}${extra ? `, ${extra.select}` : ''} FROM ${this.spec.table} t ${extra?.join ?? ''}
       WHERE t.id = $1${scoped ? ` AND ${scoped}` : ''}`,
      params,
    );
    const row = rows[0];
    if (!row) throw new AppError('NOT_FOUND', `No ${this.spec.name} record '${id}'`, 404);
    return row;
  }

  /** Validates every item first, then inserts all in one statement; any failure creates nothing. */
  async create(principal: Principal, body: unknown): Promise<{ rows: Row[]; tokens: (string | undefined)[] }> {
    return this.write(principal, body, 'create');
  }

  /**
   * Creates or replaces records by id (imports: a re-imported GTFS feed or GeoJSON file updates
   * what it already holds). A retired record that is imported again becomes current again.
   */
  async upsert(principal: Principal, body: unknown): Promise<Row[]> {
    return (await this.write(principal, body, 'upsert')).rows;
  }

  private async write(
    principal: Principal,
    body: unknown,
    mode: 'create' | 'upsert',
  ): Promise<{ rows: Row[]; tokens: (string | undefined)[] }> {
    requireWrite(principal, this.spec.access);
    const items = Array.isArray(body) ? body : [body];
    if (items.length === 0) throw new AppError('EMPTY_BATCH', 'Nothing to create', 400);
    if (items.length > MAX_BATCH)
      throw new AppError('BATCH_TOO_LARGE', `At most ${MAX_BATCH} records per request`, 413);
    const issues: { index: number; path: string; message: string; geometry: boolean }[] = [];
    const parsed = items.map((item, index) => {
      const r = this.spec.createSchema.safeParse(item);
      if (!r.success) {
        issues.push(...issuesOf(r.error).map((i) => ({ ...i, index })));
        return undefined;
      }
      return r.data as Record<string, unknown>;
    });
    // When each new record's first version starts: its own in-force date, a back-dated
    // `validFrom` in the body, or (undefined) now.
    const validFrom = items.map((item, index) => {
      const data = parsed[index];
      if (mode !== 'create' || !data) return undefined;
      if (this.spec.inForceFrom) return this.spec.inForceFrom(data);
      const raw = (item as { validFrom?: unknown } | null)?.validFrom;
      if (raw === undefined || Object.hasOwn(this.spec.columns, 'validFrom')) return undefined;
      const r = validFromSchema.safeParse(raw);
      if (!r.success) {
        issues.push({ index, path: 'validFrom', message: r.error.issues[0]?.message ?? 'invalid', geometry: false });
      }
      return r.success ? r.data : undefined;
    });
    if (issues.length > 0) throw schemaError(issues, 'Some records do not match the schema');
    const checked = this.spec.check;
    if (checked) {
      const problems = parsed.flatMap((data, index) =>
        data ? checked(data, new Set(Object.keys(data))).map((i) => ({ ...i, index })) : [],
      );
      if (problems.length > 0) throw checkError(problems);
    }
    const tokens: (string | undefined)[] = [];
    const records = parsed.map((data) => {
      const row: Row = { id: data?.id ?? this.newId() };
      for (const [field, column] of Object.entries(this.spec.columns as Record<string, string>)) {
        const value = data?.[field];
        if (value !== undefined) row[column] = value;
      }
      if (this.spec.token) {
        const token = generateToken(this.spec.token);
        tokens.push(token);
        row.token_hash = hashToken(token);
      }
      return row;
    });
    const columns = [...new Set(records.flatMap((r) => Object.keys(r)))];
    const onConflict =
      mode === 'upsert'
        ? `ON CONFLICT (id) DO UPDATE SET ${columns
            .filter((c) => c !== 'id')
            .map((c) => `${c} = EXCLUDED.${c}`)
            .join(', ')}, updated_at = now(), retired_at = NULL`
        : '';
    try {
      const rows = await this.db.transaction(async (tx) => {
        const { rows: inserted } = await tx.query<{ id: string }>(
          `INSERT INTO ${this.spec.table} (${columns.join(', ')})
           SELECT ${columns.join(', ')} FROM jsonb_populate_recordset(NULL::${this.spec.table}, $1::jsonb)
           ${onConflict}
           RETURNING id`,
          [JSON.stringify(records)],
        );
        const fresh = await this.fetch(
          tx,
          inserted.map((r) => r.id),
        );
        const byId = new Map(records.map((r, i) => [r.id, validFrom[i]]));
        await this.recordHistory(
          tx,
          fresh,
          fresh.map((r) => byId.get(r.id)),
        );
        return fresh;
      });
      return { rows, tokens };
    } catch (err) {
      throw translateDbError(err, this.spec.columns);
    }
  }

  /** Closes each record's current version and opens the new one, in the caller's transaction. */
  /**
   * Closes each record's current version and opens the new one, in the caller's transaction.
   * A new version is in force from now, or from the `validFrom` given at creation (a record
   * that has been in force for a while: a fleet being on-boarded, a permit issued last year).
   */
  private async recordHistory(tx: Queryable, rows: Row[], validFrom: (string | undefined)[] = []): Promise<void> {
    if (rows.length === 0) return;
    await tx.query(
      'UPDATE registry_history SET valid_to = now() WHERE collection = $1 AND id = ANY($2::text[]) AND valid_to IS NULL',
      [this.spec.name, rows.map((r) => r.id)],
    );
    await tx.query(
      `INSERT INTO registry_history (collection, id, valid_from, record)
       SELECT $1, r->>'id', coalesce((v.valid_from)::timestamptz, now()), r
       FROM jsonb_array_elements($2::jsonb) WITH ORDINALITY AS x(r, n)
       LEFT JOIN unnest($3::text[]) WITH ORDINALITY AS v(valid_from, n) USING (n)`,
      [this.spec.name, JSON.stringify(rows), rows.map((_, i) => validFrom[i] ?? null)],
    );
  }

  private async fetch(q: Queryable, ids: string[]): Promise<Row[]> {
    const { rows } = await q.query<Row>(
      `SELECT ${this.select} FROM ${this.spec.table} t WHERE t.id = ANY($1::text[])`,
      [ids],
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)).filter((r): r is Row => r !== undefined);
  }

  async patch(principal: Principal, id: string, body: unknown): Promise<{ before: Row; after: Row }> {
    requireWrite(principal, this.spec.access);
    const r = this.patchSchema.safeParse(body);
    if (!r.success) throw schemaError(issuesOf(r.error), 'The request does not match the schema');
    // The schema has no defaults (patchSchemaOf), so what it returns is what the body names.
    const changes: Row = {};
    for (const [field, value] of Object.entries(r.data)) {
      const column = (this.spec.columns as Record<string, string>)[field];
      if (column && value !== undefined) changes[column] = value;
    }
    const sets = Object.keys(changes).map((c) => `${c} = r.${c}`);
    if (sets.length === 0) throw new AppError('EMPTY_PATCH', 'Nothing to change', 400);
    try {
      return await this.db.transaction(async (tx) => {
        const [before] = await this.fetch(tx, [id]);
        if (!before) throw new AppError('NOT_FOUND', `No ${this.spec.name} record '${id}'`, 404);
        if (before.retiredAt) throw new AppError('RETIRED', `${this.spec.name} record '${id}' is retired`, 409);
        const problems = this.spec.check?.({ ...before, ...r.data }, new Set(Object.keys(r.data))) ?? [];
        if (problems.length > 0) throw checkError(problems);
        // Typed by PostgreSQL from JSON, as on create: a JS array bound as a parameter would be
        // sent as a PostgreSQL array, which a jsonb column (a contract's places) refuses.
        await tx.query(
          `UPDATE ${this.spec.table} t SET ${sets.join(', ')}, updated_at = now()
           FROM jsonb_populate_record(NULL::${this.spec.table}, $2::jsonb) AS r WHERE t.id = $1`,
          [id, JSON.stringify(changes)],
        );
        const [after] = await this.fetch(tx, [id]);
        await this.recordHistory(tx, [after!]);
        return { before, after: after! };
      });
    } catch (err) {
      throw translateDbError(err, this.spec.columns);
    }
  }

  /** DELETE retires: the row stays for history and for judging past events. */
  async retire(principal: Principal, id: string): Promise<Row> {
    requireWrite(principal, this.spec.access);
    const hasStatus = 'status' in (this.spec.columns as Record<string, string>);
    return this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{ id: string }>(
        `UPDATE ${this.spec.table} SET retired_at = now(), updated_at = now()${hasStatus ? ", status = 'withdrawn'" : ''}
         WHERE id = $1 AND retired_at IS NULL RETURNING id`,
        [id],
      );
      const [row] = await this.fetch(tx, [id]);
      if (!row) throw new AppError('NOT_FOUND', `No ${this.spec.name} record '${id}'`, 404);
      if (rows.length > 0) await this.recordHistory(tx, [row]);
      return row;
    });
  }

  /** Issues a new token for a device or user; the old one stops working. */
  async rotateToken(principal: Principal, id: string): Promise<{ row: Row; token: string }> {
    requireWrite(principal, this.spec.access);
    if (!this.spec.token) throw new AppError('NOT_FOUND', `${this.spec.name} records have no token`, 404);
    const token = generateToken(this.spec.token);
    const { rows } = await this.db.query<{ id: string }>(
      `UPDATE ${this.spec.table} SET token_hash = $2, token_issued_at = now(), updated_at = now()
       WHERE id = $1 AND retired_at IS NULL RETURNING id`,
      [id, hashToken(token)],
    );
    if (rows.length === 0) throw new AppError('NOT_FOUND', `No current ${this.spec.name} record '${id}'`, 404);
    const [row] = await this.fetch(this.db, [id]);
    return { row: row!, token };
  }
}

/**
 * Portuguese accents folded to their base letter in SQL: `unaccent` is an extension that neither
 * every managed PostgreSQL nor PGlite has, and ILIKE folds only the case.
 */
const accented = 'ÁÀÂÃÄÉÈÊËÍÌÎÏÓÒÔÕÖÚÙÛÜÇáàâãäéèêëíìîïóòôõöúùûüç';
const unaccented = 'AAAAAEEEEIIIIOOOOOUUUUCaaaaaeeeeiiiiooooouuuuc';
export function foldAccents(expression: string): string {
  return `translate(${expression}, '${accented}', '${unaccented}')`;
}
