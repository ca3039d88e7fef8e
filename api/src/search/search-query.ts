import { z } from 'zod';
import { filterTextSchema } from '../registry/collection.js';

/** At most this many results per call: a search box shows a short list, not a page. */
export const SEARCH_MAX_LIMIT = 50;
/** The longest `q`: longer than any plate, CNPJ, permit number or stop name. */
export const SEARCH_MAX_QUERY = 100;

/** `GET /v1/search?q=&limit=`: what was typed, and how many results. */
export const searchQuerySchema = z.object({
  q: filterTextSchema.pipe(z.string().min(1, 'q is required').max(SEARCH_MAX_QUERY)),
  limit: z.coerce.number().int().min(1).max(SEARCH_MAX_LIMIT).default(10),
});
export type SearchQuery = z.output<typeof searchQuerySchema>;

export const searchKinds = ['vehicle', 'operator', 'driver', 'stop', 'stand'] as const;
export type SearchKind = (typeof searchKinds)[number];

/** One result: what it is, its id, what to show (label and a detail line) and where, if it is a place. */
export const searchItemSchema = z.object({
  kind: z.enum(searchKinds),
  id: z.string(),
  label: z.string(),
  detail: z.string(),
  lat: z.number().optional(),
  lon: z.number().optional(),
  /** A vehicle's or driver's operator, or the operator itself (an addition to the agreed shape). */
  operatorId: z.string().optional(),
});
export type SearchItem = z.infer<typeof searchItemSchema>;
