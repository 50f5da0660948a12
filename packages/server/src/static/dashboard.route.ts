import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { registerRoute } from '../http/route-contract.js';
import { notBuiltPage } from './not-built-page.js';

/**
 * Serves the built dashboard (`packages/dashboard/dist`) on the API's origin: files as they
 * are, and `index.html` for any other page a browser navigates to (the SPA routes itself).
 * A small handler rather than @fastify/static: one directory, no options, and the fallback
 * rules below are the whole point.
 */

/** From `src/static/` (tests, tsx) and from `dist/static/` alike: the sibling package's dist. */
export function defaultDashboardDir(): string {
  return fileURLToPath(new URL('../../../dashboard/dist/', import.meta.url));
}

/**
 * The only sources the dashboard needs: its own files and its own API. No inline script or
 * style, no framing (clickjacking), no plugins, no <base> rewriting.
 */
export const DASHBOARD_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Paths the dashboard never shadows: a miss there is the API's 404 problem details. */
const RESERVED = /^\/(v1(\/|$)|healthz$|readyz$|skill\.md$|openapi\.json$|docs(\/|$)|llms\.txt$)/;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
};

/** Vite names built assets `assets/<name>-<hash>.<ext>`: their content never changes. */
const HASHED_ASSET = /^\/assets\/.+-[A-Za-z0-9_-]{8,}\.[a-z0-9]+$/;

function htmlHeaders(reply: FastifyReply): FastifyReply {
  return reply.headers({
    'content-type': TYPES['.html'],
    'cache-control': 'no-cache',
    'content-security-policy': DASHBOARD_CSP,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
  });
}

/** The file under `root` a URL path names, or null when it escapes root or names a dotfile. */
function fileFor(root: string, urlPath: string): string | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.split('/').some((part) => part.startsWith('.'))) {
    return null;
  }
  const file = normalize(join(root, decoded === '/' ? '/index.html' : decoded));
  return file.startsWith(root) ? file : null;
}

async function regularFile(path: string) {
  try {
    const info = await stat(path);
    return info.isFile() ? info : null;
  } catch {
    return null;
  }
}

async function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  path: string,
  urlPath: string,
) {
  const info = await regularFile(path);
  if (!info) return false;
  const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  const ext = extname(path).toLowerCase();
  if (ext === '.html') htmlHeaders(reply);
  else {
    reply.headers({
      'content-type': TYPES[ext] ?? 'application/octet-stream',
      'x-content-type-options': 'nosniff',
      'cache-control': HASHED_ASSET.test(urlPath)
        ? 'public, max-age=31536000, immutable'
        : 'public, max-age=3600, must-revalidate',
    });
  }
  reply.header('etag', etag);
  if (request.headers['if-none-match'] === etag) {
    await reply.code(304).send();
    return true;
  }
  await reply.send(await readFile(path));
  return true;
}

function acceptsHtml(request: FastifyRequest): boolean {
  return (request.headers.accept ?? '').includes('text/html');
}

/** The build folder, with a trailing separator so that `fileFor` can check containment. */
export function dashboardRoot(dir: string | undefined): string {
  const chosen = dir ?? defaultDashboardDir();
  return normalize(chosen.endsWith(sep) ? chosen : chosen + sep);
}

/** The app's `index.html`, or the page that says how to build it when there is no build. */
export async function sendAppShell(
  request: FastifyRequest,
  reply: FastifyReply,
  root: string,
): Promise<FastifyReply> {
  if (await sendFile(request, reply, join(root, 'index.html'), '/index.html')) return reply;
  return htmlHeaders(reply).code(503).send(notBuiltPage());
}

/** `/` itself is the front door's (front-door.route.ts): it negotiates what it answers. */
export function registerDashboard(
  app: FastifyInstance,
  ctx: AppContext,
  options: { dir?: string | undefined } = {},
): void {
  const root = dashboardRoot(options.dir);
  registerRoute(app, ctx, {
    contract: { method: 'GET', url: '/*' },
    handler: async ({ request, reply }) => {
      const urlPath = request.url.split('?')[0] ?? '/';
      if (RESERVED.test(urlPath)) return reply.callNotFound();
      const file = fileFor(root, urlPath);
      if (file && (await sendFile(request, reply, file, urlPath))) return reply;
      if (!acceptsHtml(request)) return reply.callNotFound();
      // A page of the single-page app (/projects/…): the app routes it in the browser.
      return sendAppShell(request, reply, root);
    },
  });
}
