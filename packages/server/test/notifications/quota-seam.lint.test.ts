import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

/** Every module a file imports (static, dynamic and type-only), as written. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1] as string);
}

/** The server's files `entry` loads, following its relative imports, and the packages it names. */
function closureOf(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const spec of importsOf(file)) {
      if (!spec.startsWith('.')) {
        packages.add(spec);
        continue;
      }
      const target = resolve(dirname(file), spec.replace(/\.js$/, '.ts'));
      if (existsSync(target)) visit(target);
    }
  };
  visit(join(SRC, entry));
  return { files: [...files].map((file) => relative(SRC, file)), packages: [...packages] };
}

/**
 * The seam between the write path and the quota's notifications
 * (reports/write-path/quota-crossing-port.ts): the write path owns the port and imports nothing
 * of notifications/; the SQLite writer thread loads the outbox's producer side only, never the
 * deliverer's HTTP client, signing or mail.
 */
describe('the quota seam', () => {
  it('leaves reports/write-path/ without an import of notifications/', () => {
    const crossings = readdirSync(join(SRC, 'reports/write-path'), {
      recursive: true,
      encoding: 'utf8',
    })
      .filter((file) => file.endsWith('.ts'))
      .flatMap((file) =>
        importsOf(join(SRC, 'reports/write-path', file))
          .filter((spec) => spec.includes('/notifications/'))
          .map((spec) => `${file} imports ${spec}`),
      );
    expect(crossings).toEqual([]);
  });

  it("keeps the deliverer out of the SQLite writer thread's entry", () => {
    const { files, packages } = closureOf('wiring/sqlite-writer-worker.ts');
    expect(files).toContain('notifications/producers/quota-crossings.ts');
    expect(
      files.filter((file) =>
        /^notifications\/(index|deliverer|fan-out|guarded-post|webhook-channel)\.ts$|^notifications\/(channels|email)\//.test(
          file,
        ),
      ),
    ).toEqual([]);
    expect(
      packages.filter((name) =>
        ['standardwebhooks', 'nodemailer', 'request-filtering-agent'].includes(name),
      ),
    ).toEqual([]);
  });
});
