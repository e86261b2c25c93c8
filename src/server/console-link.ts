// Console sign-in links as printed by `quill serve` and `quill console link`.
import type { Config } from '../config.ts';
import { type LinkRequest, mintLink } from '../console/index.tsx';

/** Where operators reach the console: CONSOLE_PUBLIC_URL, else this host and port. */
export function consoleBaseUrl(config: Pick<Config, 'console' | 'host' | 'port'>, port?: number): string {
  if (config.console.publicUrl) return config.console.publicUrl;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  return `http://${host.includes(':') ? `[${host}]` : host}:${port ?? config.port}`;
}

export async function signInLink(secret: string, base: string, req: LinkRequest): Promise<string> {
  return `${base}/console/signin?t=${await mintLink(secret, req)}`;
}
