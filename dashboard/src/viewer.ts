import type { ApiClient } from './api-client.js';

/**
 * Who is signed in (`GET /v1/me`), and what the interface offers them. Each role sees only what it
 * can use: the server refuses the rest anyway (the access table in api/test/authorization-matrix.test.ts),
 * so a button the role may not press is noise at best and a false promise at worst.
 */
export const viewerRoles = ['admin', 'regulator', 'enforcement', 'dispatcher', 'operator', 'device'] as const;
export type ViewerRole = (typeof viewerRoles)[number];

export interface Viewer {
  kind: 'admin' | 'user' | 'device';
  id: string;
  /** The user's name in the registry; null for the admin token. */
  name: string | null;
  role: ViewerRole;
  operatorIds: string[];
}

let current: Viewer | null = null;
const listeners = new Set<(viewer: Viewer | null) => void>();

export function currentViewer(): Viewer | null {
  return current;
}

export function setViewer(viewer: Viewer | null): void {
  current = viewer;
  for (const listener of listeners) listener(viewer);
}

/** Called now with the current viewer (null before sign-in) and on every change. */
export function onViewerChange(listener: (viewer: Viewer | null) => void): () => void {
  listeners.add(listener);
  listener(current);
  return () => listeners.delete(listener);
}

function hasRole(...roles: ViewerRole[]): boolean {
  return current !== null && roles.includes(current.role);
}

/** `POST /v1/violations/:id/review`: the admin, regulators and enforcement agents. */
export function canReview(): boolean {
  return hasRole('admin', 'regulator', 'enforcement');
}

/** The dispatch console takes and assigns bookings: the admin and the operators' dispatchers. */
export function canDispatch(): boolean {
  return hasRole('admin', 'dispatcher');
}

/** The field view is an enforcement tool: agents, regulators and the admin. */
export function canUseFieldView(): boolean {
  return hasRole('admin', 'regulator', 'enforcement');
}

/** The regulator's analytics pages: regulators and the admin. */
export function isRegulatorOrAdmin(): boolean {
  return hasRole('admin', 'regulator');
}

/** Reads who the token stands for. */
export async function fetchViewer(api: ApiClient): Promise<Viewer> {
  const body = await api.getJson<unknown>('/v1/me');
  const viewer = toViewer(body);
  if (viewer === null) throw new Error('GET /v1/me answered an unexpected shape');
  return viewer;
}

export function toViewer(value: unknown): Viewer | null {
  if (typeof value !== 'object' || value === null) return null;
  const record = value as Record<string, unknown>;
  const { kind, id, name, role, operatorIds } = record;
  if (kind !== 'admin' && kind !== 'user' && kind !== 'device') return null;
  if (typeof id !== 'string' || (name !== null && typeof name !== 'string')) return null;
  if (typeof role !== 'string' || !(viewerRoles as readonly string[]).includes(role)) return null;
  const operators = Array.isArray(operatorIds) ? operatorIds.filter((item) => typeof item === 'string') : [];
  return { kind, id, name, role: role as ViewerRole, operatorIds: operators };
}
