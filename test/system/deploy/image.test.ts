// The images as far as this machine allows without a Docker engine: each Dockerfile's COPY steps are replayed into
// a folder and its `npm ci` run there (scripts skipped, from the npm cache), then the image's entry point is run.
// The wallet's image holds no sandbox: `quill serve` wants LEDGER_URL, --demo, --sandbox and `quill sandbox` say the
// sandbox is not installed; the sandbox's image runs `quill-sandbox` and holds no wallet.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../../support/tmp.ts';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Replays a Dockerfile's COPY and `RUN npm ci` steps (WORKDIR /app) into a new folder; returns the folder. */
function build(dockerfile: string): string {
  const app = tempDir('quill-image-');
  for (const line of readFileSync(join(ROOT, dockerfile), 'utf8').split('\n')) {
    const copy = /^COPY\s+(.+)$/.exec(line);
    if (copy) {
      const parts = (copy[1] as string).trim().split(/\s+/);
      const dest = parts.pop() as string;
      for (const from of parts) {
        const to = dest.endsWith('/') ? join(app, dest, from.split('/').pop() as string) : join(app, dest);
        mkdirSync(dirname(to), { recursive: true });
        cpSync(join(ROOT, from), to, { recursive: true });
      }
      continue;
    }
    const ci = /^RUN (npm ci [^&]*)/.exec(line);
    if (ci) {
      const args = (ci[1] as string).trim().split(/\s+/).slice(1);
      const run = spawnSync('npm', [...args, '--ignore-scripts', '--prefer-offline'], {
        cwd: app,
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
    }
  }
  return app;
}

function run(app: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, args, {
    cwd: app,
    encoding: 'utf8',
    timeout: 60_000,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr.trim() };
}

describe('the wallet image (Dockerfile)', () => {
  it('holds no sandbox, and says so when asked for one', { timeout: 180_000 }, () => {
    const app = build('Dockerfile');
    expect(existsSync(join(app, 'packages/sandbox'))).toBe(false);
    expect(existsSync(join(app, 'node_modules/@quill/sandbox'))).toBe(false);
    expect(existsSync(join(app, 'node_modules/@quill/canton'))).toBe(true);
    const serve = run(app, ['bin/quill.js', 'serve'], { AUTH_JWT_SECRET: 'x'.repeat(40) });
    expect(serve.code).toBe(2);
    expect(serve.stderr).toMatch(/^quill: LEDGER_URL is not set: .*--demo/);
    for (const args of [
      ['serve', '--demo'],
      ['serve', '--sandbox'],
      ['sandbox', '--port', '0'],
    ]) {
      const r = run(app, ['bin/quill.js', ...args]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(
        'quill: the sandbox is not installed (it is a development dependency, not in the production image): run `npm ci` with dev dependencies, or point LEDGER_URL at a participant',
      );
    }
    expect(run(app, ['bin/quill.js', 'tx', '--help']).code).toBe(0);
  });
});

describe('the sandbox image (packages/sandbox/Dockerfile)', () => {
  it('runs quill-sandbox and holds no wallet', { timeout: 180_000 }, () => {
    const app = build('packages/sandbox/Dockerfile');
    expect(existsSync(join(app, 'src'))).toBe(false);
    const help = run(app, ['packages/sandbox/bin/quill-sandbox.js', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Usage: quill-sandbox');
    const bad = run(app, ['packages/sandbox/bin/quill-sandbox.js', '--port', 'seventy']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe('quill-sandbox: --port must be a port number (0-65535), got "seventy"');
  });
});
