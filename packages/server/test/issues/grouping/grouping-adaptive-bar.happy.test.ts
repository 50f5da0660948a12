/**
 * The adaptive bar: an issue that has drawn a close report which opened an issue of its own
 * (a near miss) takes the next close report at a lowered bar; reports far from it stay apart.
 * And the other languages' frequent nouns and the concepts that say what went wrong are shared
 * across languages.
 */
import { describe, expect, it } from 'vitest';
import {
  assign,
  type Candidate,
  fingerprint,
  JOIN_THRESHOLD,
  LOWERED_BAR,
  NEAR_MISS_SHARE,
} from '../../../src/issues/grouping/index.js';

const tool = 'export_report';
const signature = (details: string) =>
  fingerprint({ outcome: 'failure', tool_name: tool, details });
const issue = (nearMisses?: number): Candidate => ({
  issueId: 'memory',
  signature: signature('The export stops with an out of memory error on reports with many charts.'),
  memberCount: 1,
  ...(nearMisses === undefined ? {} : { nearMisses }),
});
// 0.125 similar to the issue: under the bar (0.18), over half of it.
const close = signature('Crash with heap exhausted during export of large charts report');
const far = signature('The PDF has the wrong page size, A4 instead of Letter.');

describe('the adaptive bar', () => {
  it('counts a close report that opens its own issue as a near miss of the issue it came close to', () => {
    const assignment = assign(close, [issue()]);
    expect(assignment.issueId).toBeNull();
    expect(assignment.similarity).toBeGreaterThanOrEqual(JOIN_THRESHOLD.problem * NEAR_MISS_SHARE);
    expect(assignment.nearMissOf).toBe('memory');
  });

  it('lets an issue with a near miss take the next close report, and says why', () => {
    const assignment = assign(close, [issue(1)]);
    expect(assignment.issueId).toBe('memory');
    expect(assignment.similarity).toBeLessThan(JOIN_THRESHOLD.problem);
    expect(assignment.similarity).toBeGreaterThanOrEqual(JOIN_THRESHOLD.problem * LOWERED_BAR);
    expect(assignment.reason).toContain('its bar lowered to 0.09: 1 close report opened');
  });

  it('keeps a report far from every issue apart, near misses or not, and counts no near miss', () => {
    const assignment = assign(far, [issue(3)]);
    expect(assignment.issueId).toBeNull();
    expect(assignment.nearMissOf).toBeNull();
  });
});

describe('a rejected suggestion', () => {
  // Next closest to the close report (it shares "charts" with it), and rejected against the first.
  const charts: Candidate = {
    issueId: 'charts',
    signature: signature('Charts are missing from the exported file.'),
    memberCount: 1,
  };

  it('keeps a report between two issues a developer kept apart from joining at the lowered bar', () => {
    const rejected = (a: string, b: string) =>
      [a, b].sort().join(' ') === ['charts', 'memory'].sort().join(' ');
    const apart = assign(close, [issue(1), charts], [], { rejected });
    expect(apart.issueId).toBeNull();
    expect(assign(close, [issue(1), charts], [], { rejected: () => false }).issueId).toBe('memory');
  });
});

describe('words shared across languages', () => {
  const terms = (details: string) => Object.keys(signature(details).terms);

  it('maps other languages’ frequent nouns to the English word', () => {
    const english = terms('the password of the file');
    expect(english.length).toBe(2);
    expect(terms('Das Passwort der Datei')).toEqual(english);
    expect(terms('la contraseña del archivo')).toEqual(english);
  });

  it('names a full disk, a rotated image and an encrypted file as one concept in every language', () => {
    expect(terms('npm ERR! code ENOSPC')).toContain('#diskfull');
    expect(terms('Plus d’espace disque pendant l’installation')).toContain('#diskfull');
    expect(terms('Hochkant fotografierte Seiten werden nicht gedreht')).toContain('#rotated');
    expect(terms('the thumbnails come out sideways')).toContain('#rotated');
    expect(terms('PDF protegido con contraseña')).toContain('#encrypted');
    expect(terms('password-protected PDFs fail')).toContain('#encrypted');
  });
});
