// Swagger UI at /docs with its assets served from the installed swagger-ui-dist: no CDN, works offline.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { swaggerUI } from '@hono/swagger-ui';
import { Hono } from 'hono';

const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

function distDir(): string {
  return dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
}

export function docsRoutes() {
  const cache = new Map<string, Buffer>();
  return new Hono()
    .get('/docs/assets/swagger-ui-dist/:file', async (c) => {
      const file = c.req.param('file');
      const type = ASSETS[file];
      if (!type) return c.json({ error: { code: 'NOT_FOUND', message: 'no such asset' } }, 404);
      let body = cache.get(file);
      if (!body) {
        body = await readFile(join(distDir(), file));
        cache.set(file, body);
      }
      c.header('content-type', type);
      c.header('cache-control', 'public, max-age=86400');
      return c.body(new Uint8Array(body));
    })
    .get('/docs', swaggerUI({ url: '/openapi.json', baseUrl: '/docs/assets', title: 'Quill wallet API' }));
}
