import { z } from 'zod';

/** `host:port` (IPv6 in brackets: `[::1]:5027`) of a device gateway. */
export const hostPortSchema = z
  .string()
  .trim()
  .regex(/^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):\d{1,5}$/, 'host:port')
  .transform((v) => {
    const at = v.lastIndexOf(':');
    return { host: v.slice(0, at).replace(/^\[|\]$/g, ''), port: Number(v.slice(at + 1)) };
  })
  .pipe(z.object({ host: z.string().min(1), port: z.number().int().min(1).max(65_535) }));

export type HostPort = z.output<typeof hostPortSchema>;
