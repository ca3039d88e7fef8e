import { configSchema, portKeys } from './config.js';
import { AppError } from './errors.js';

/**
 * A start-up failure an operator can fix (a port taken, a bad variable) ends the process with
 * one line saying what to change, and exit code 1: a stack trace would hide the one fact that
 * matters. Anything else is a bug and keeps its stack.
 */
export function startupFailureLine(
  name: string,
  err: unknown,
  env: Record<string, string | undefined>,
): string | undefined {
  const e = err as { code?: unknown; port?: unknown; address?: unknown; syscall?: unknown };
  if (e.code === 'EADDRINUSE' || e.code === 'EACCES') {
    const port = typeof e.port === 'number' ? e.port : undefined;
    const variables = port === undefined ? [] : portVariables(port, env);
    const where = `${typeof e.address === 'string' ? e.address : ''}:${port ?? '?'}`;
    const what = e.code === 'EADDRINUSE' ? 'is already in use' : 'may not be opened by this user';
    const fix = variables.length > 0 ? `set ${variables.join(' or ')} to a free port` : 'change the port settings';
    return `${name}: ${String(e.code)}: ${where} ${what}; ${fix} (0 = any free port)`;
  }
  if (err instanceof AppError) return `${name}: ${err.code}: ${err.message}`;
  return undefined;
}

/** The port variables (PORT, OSMAND_PORT, …) whose value, as the process read them, is `port`. */
function portVariables(port: number, env: Record<string, string | undefined>): string[] {
  return portKeys.filter((k) => {
    const schema = configSchema.shape[k as keyof typeof configSchema.shape];
    const raw = env[k];
    const parsed = schema.safeParse(raw === '' ? undefined : raw);
    return parsed.success && parsed.data === port;
  });
}

/** Runs an entry point's start; an operator's mistake exits with one line on stderr. */
export async function startOrExit<T>(
  name: string,
  start: () => Promise<T>,
  env: Record<string, string | undefined> = process.env,
): Promise<T> {
  try {
    return await start();
  } catch (err) {
    const line = startupFailureLine(name, err, env);
    if (line === undefined) throw err;
    process.stderr.write(`${line}\n`);
    process.exit(1);
  }
}
