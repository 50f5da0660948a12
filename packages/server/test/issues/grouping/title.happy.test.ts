import { describe, expect, it } from 'vitest';
import { TITLE_MAX_LENGTH, titleFor } from '../../../src/issues/grouping/index.js';

const titleOf = (details: string) =>
  titleFor([{ outcome: 'failure', tool_name: 'search_documents', details }]);

/** Titles keep what a developer needs to tell issues apart: the cause, whole parentheses. */
describe('titleFor keeps the cause and whole parentheses', () => {
  it('reads "z. B." and "e.g." as abbreviations, not ends of sentences', () => {
    expect(
      titleOf('Die Antwort enthält (z. B. bei Umlauten) falsch kodierte Zeichen. Bitte prüfen.'),
    ).toBe('Die Antwort enthält (z. B. bei Umlauten) falsch kodierte Zeichen');
    expect(titleOf('Some fields (e.g. the due date) are dropped on save. Tried twice.')).toBe(
      'Some fields (e.g. the due date) are dropped on save',
    );
  });

  it('never ends a long title inside a parenthesis', () => {
    const title = titleOf(
      'Die Antwort des Werkzeugs search_documents enthält (z. B. bei Umlauten und Sonderzeichen wie ß) falsch kodierte Zeichen.',
    );
    expect(title.length).toBeLessThanOrEqual(TITLE_MAX_LENGTH);
    expect(title).toBe('Die Antwort des Werkzeugs search_documents enthält…');
    expect(title).not.toMatch(/\([^)]*$/);
  });

  it('keeps the cause after a bare symptom', () => {
    expect(titleOf('Search failed. The API returned 500: rate limit exceeded.')).toBe(
      'Search failed. The API returned 500: rate limit exceeded',
    );
    // A first sentence that says enough stands alone.
    expect(
      titleOf('Page 2 repeats page 1 because the cursor is ignored. I tried three times.'),
    ).toBe('Page 2 repeats page 1 because the cursor is ignored');
  });
});
