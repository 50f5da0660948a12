import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeSettings } from '../../src/config.js';

const README = new URL('../../../../README.md', import.meta.url);

/** The rows of the README's configuration table: `| \`NAME\` | \`default\` | meaning |`. */
function readmeSettings(): Map<string, string> {
  const readme = readFileSync(README, 'utf8');
  const section = /\n## Configuration\n([\s\S]*?)(?=\n## |$)/.exec(readme)?.[1] ?? '';
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = /^\|\s*`([A-Z][A-Z0-9_]*)`\s*\|\s*([^|]*?)\s*\|/.exec(line);
    if (cells?.[1] && cells[2] !== undefined) rows.set(cells[1], cells[2]);
  }
  return rows;
}

describe("the README's configuration table", () => {
  const documented = readmeSettings();
  const settings = describeSettings();

  it('lists every setting of the Env schema and no other', () => {
    expect([...documented.keys()].sort()).toEqual(settings.map((s) => s.name).sort());
  });

  it.each(settings)('gives $name its default', ({ name, default: fallback }) => {
    expect(documented.get(name)).toBe(fallback === undefined ? '' : `\`${fallback}\``);
  });

  it('describes every setting in the schema', () => {
    for (const setting of settings) expect(setting.description, setting.name).not.toBe('');
  });
});
