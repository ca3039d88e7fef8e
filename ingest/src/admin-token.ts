import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AppError, type Config, generateToken } from '@vigia/core';

/**
 * ADMIN_TOKEN when set. Otherwise, in embedded mode only, a generated token kept in
 * DATA_DIR/admin-token so it survives restarts; a services deployment must set it.
 */
export async function resolveAdminToken(config: Config): Promise<{ token: string; generated: boolean }> {
  if (config.ADMIN_TOKEN) return { token: config.ADMIN_TOKEN, generated: false };
  if (config.DATABASE_URL) {
    throw new AppError('ADMIN_TOKEN_REQUIRED', 'ADMIN_TOKEN must be set when DATABASE_URL is set (services mode)', 500);
  }
  const file = join(config.DATA_DIR, 'admin-token');
  try {
    const token = (await readFile(file, 'utf8')).trim();
    if (token.length >= 16) return { token, generated: false };
  } catch {
    // none yet
  }
  const token = generateToken('adm');
  await mkdir(config.DATA_DIR, { recursive: true });
  await writeFile(file, `${token}\n`, { mode: 0o600 });
  return { token, generated: true };
}
