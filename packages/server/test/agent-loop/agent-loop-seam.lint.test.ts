import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '../../src');

/** Every module a file imports (static, dynamic and type-only), as written. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1] as string);
}

const sources = (filter: (file: string) => boolean) =>
  readdirSync(SRC, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && filter(file))
    .map((file) => join(SRC, file));

/**
 * The seam between submitting and the agent loop (reports/issue-answer-port.ts): submitting
 * owns the port and imports nothing of issues/; the agent loop is reached through its one entry.
 */
describe('the seam between submitting and the agent loop', () => {
  it('leaves reports/ without an import of issues/', () => {
    const crossings = sources((file) => file.startsWith('reports/')).flatMap((file) =>
      importsOf(file)
        .filter((spec) => /\/issues\//.test(spec))
        .map((spec) => `${relative(SRC, file)} imports ${spec}`),
    );
    expect(crossings).toEqual([]);
  });

  it('reaches issues/agent-loop/ only through its index.ts from outside it', () => {
    const reaching = sources((file) => !file.startsWith('issues/agent-loop/')).flatMap((file) =>
      importsOf(file)
        .filter((spec) => spec.includes('/agent-loop/') && !spec.endsWith('/agent-loop/index.js'))
        .map((spec) => `${relative(SRC, file)} imports ${spec}`),
    );
    expect(reaching).toEqual([]);
  });
});
