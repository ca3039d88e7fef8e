/**
 * Where one statement's time goes, from auto_explain: with `log_nested_statements` and
 * `log_analyze` on and `client_min_messages = log`, every statement the session runs, those
 * inside functions included, arrives at the client as a LOG notice holding its plan with actual
 * times (JSON here, `auto_explain.log_format = json`, so it is parsed rather than scraped).
 *
 * The summary is one line per top-level part of each statement: every CTE, every other InitPlan or
 * SubPlan at the top, and the main plan. A CTE is computed by whichever CTE Scan pulls its rows
 * first, so a part's inclusive time holds the CTEs it reads; its "own" time subtracts the CTE
 * Scans under it, which is what the part itself cost. auto_explain's per-node timing (two clock
 * reads per row per node) inflates all of it, the row-by-row nodes most.
 */
import type pg from 'pg';
import { z } from 'zod';

export interface PlanNode {
  'Node Type': string;
  'Parent Relationship'?: string | undefined;
  'Subplan Name'?: string | undefined;
  'CTE Name'?: string | undefined;
  'Relation Name'?: string | undefined;
  'Actual Total Time': number;
  'Actual Loops': number;
  Plans?: PlanNode[] | undefined;
}

const planNodeSchema: z.ZodType<PlanNode> = z.lazy(() =>
  z.object({
    'Node Type': z.string(),
    'Parent Relationship': z.string().optional(),
    'Subplan Name': z.string().optional(),
    'CTE Name': z.string().optional(),
    'Relation Name': z.string().optional(),
    'Actual Total Time': z.number(),
    'Actual Loops': z.number(),
    Plans: z.array(planNodeSchema).optional(),
  }),
);

const explainSchema = z.object({ 'Query Text': z.string(), Plan: planNodeSchema });

export interface ExplainedStatement {
  query: string;
  durationMs: number;
  plan: PlanNode;
}

/** Collects the plans auto_explain sends to `client` until the returned function is called. */
export function collectPlans(client: pg.Client): () => ExplainedStatement[] {
  const plans: ExplainedStatement[] = [];
  const onNotice = (notice: { message?: string | undefined }) => {
    const match = /^duration: ([\d.]+) ms\s+plan:\n([\s\S]*)$/.exec(notice.message ?? '');
    if (!match) return;
    const parsed = explainSchema.parse(JSON.parse(match[2] ?? ''));
    plans.push({ query: parsed['Query Text'], durationMs: Number(match[1]), plan: parsed.Plan });
  };
  client.on('notice', onNotice);
  return () => {
    client.off('notice', onNotice);
    return plans;
  };
}

/** auto_explain in this session only, every statement with its actual times. */
export const AUTO_EXPLAIN_ON = [
  `LOAD 'auto_explain'`,
  'SET auto_explain.log_min_duration = 0',
  'SET auto_explain.log_nested_statements = on',
  'SET auto_explain.log_analyze = on',
  'SET auto_explain.log_format = json',
  'SET client_min_messages = log',
];

export const AUTO_EXPLAIN_OFF = ['SET auto_explain.log_min_duration = -1', 'RESET client_min_messages'];

export interface PlanPart {
  name: string;
  inclusiveMs: number;
  ownMs: number;
}

const total = (node: PlanNode) => node['Actual Total Time'] * node['Actual Loops'];

/** A sub-plan listed as a part of its own (CTEs and the top InitPlans/SubPlans). */
const isPart = (node: PlanNode) =>
  node['Parent Relationship'] === 'InitPlan' || node['Parent Relationship'] === 'SubPlan';

/** The CTE Scans under `node` (not through other parts, nor through a CTE Scan), their time summed. */
function cteScansMs(node: PlanNode): number {
  let sum = 0;
  for (const child of node.Plans ?? []) {
    if (isPart(child)) continue;
    if (child['Node Type'] === 'CTE Scan') sum += total(child);
    else sum += cteScansMs(child);
  }
  return sum;
}

function describeNode(node: PlanNode): string {
  const relation = node['Relation Name'] ? ` on ${node['Relation Name']}` : '';
  return `${node['Node Type']}${relation}`;
}

/** The top-level parts of a statement's plan: its CTEs and InitPlans, then the main plan. */
export function planParts(plan: PlanNode): PlanPart[] {
  const parts: PlanPart[] = [];
  for (const child of plan.Plans ?? []) {
    if (!isPart(child)) continue;
    const ownMs = total(child) - cteScansMs(child);
    parts.push({
      name: `${child['Subplan Name'] ?? child['Node Type']}: ${describeNode(child)}`,
      inclusiveMs: total(child),
      ownMs,
    });
  }
  // The main plan's time holds the InitPlans it ran (not the CTEs, which are timed where read).
  const initPlansMs = parts.filter((p) => !p.name.startsWith('CTE ')).reduce((s, p) => s + p.inclusiveMs, 0);
  parts.push({
    name: `main: ${describeNode(plan)}`,
    inclusiveMs: total(plan),
    ownMs: total(plan) - cteScansMs(plan) - initPlansMs,
  });
  return parts;
}

/** The first words of a statement, on one line. */
export function statementLabel(query: string, length = 70): string {
  const oneLine = query
    .replace(/--[^\n]*/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return oneLine.length > length ? `${oneLine.slice(0, length - 1).trimEnd()}…` : oneLine;
}

/** The breakdown as text: per statement, its duration and one line per part. */
export function formatBreakdown(statements: readonly ExplainedStatement[]): string {
  const lines: string[] = [];
  for (const s of statements) {
    lines.push(`  ${s.durationMs.toFixed(2).padStart(8)} ms  ${statementLabel(s.query)}`);
    const parts = planParts(s.plan);
    // A statement that is only a call (or one node) says nothing more than its duration.
    if (parts.length < 2 && !(s.plan.Plans ?? []).length) continue;
    lines.push(`      ${'inclusive'.padStart(9)}  ${'own'.padStart(7)}  part`);
    for (const p of parts)
      lines.push(`      ${p.inclusiveMs.toFixed(2).padStart(9)}  ${p.ownMs.toFixed(2).padStart(7)}  ${p.name}`);
  }
  return lines.join('\n');
}
