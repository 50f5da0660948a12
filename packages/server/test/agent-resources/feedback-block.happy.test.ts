import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../../test/harness/cli-process.js';
import { renderFeedbackBlock } from '../../src/agent-resources/feedback-block.js';

/** Copies of the block in documentation sit between these markers, in a ````markdown fence. */
const COPY =
  /<!-- feedback-block:start -->\n````markdown\n([\s\S]*?)````\n<!-- feedback-block:end -->/;

const EXPECTED = renderFeedbackBlock({
  publicUrl: 'https://debrief.example.com',
  ingestKey: 'wk_YOUR_PROJECT_INGEST_KEY',
});

describe('copies of the SKILL.md feedback block', () => {
  const files = ['README.md', 'packages/server/src/agent-resources/README.md'].map((f) =>
    join(REPO_ROOT, f),
  );

  it.each(files)('%s matches renderFeedbackBlock where it holds a copy', (file) => {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const copy = COPY.exec(text);
    if (file.endsWith('agent-resources/README.md')) expect(copy).not.toBeNull();
    if (copy) expect(copy[1]).toBe(EXPECTED);
  });
});
