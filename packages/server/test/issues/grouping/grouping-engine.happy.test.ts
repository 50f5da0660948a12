/**
 * The grouping engine's pieces: normalisation, signatures, assign's rules and reasons, pinned
 * exemplars, the candidate bound and titles. The corpus-wide figures are in
 * grouping-evaluation.happy.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  assign,
  CANDIDATE_LIMIT,
  type Candidate,
  fingerprint,
  type GroupableReport,
  MAX_ISSUE_TERMS,
  mergeRepeats,
  mergeSignatures,
  removeFromSignature,
  Signature,
  TITLE_MAX_LENGTH,
  titleFor,
} from '../../../src/issues/grouping/index.js';
import { normaliseText } from '../../../src/issues/grouping/normalise.js';

const report = (details: string, extra: Partial<GroupableReport> = {}): GroupableReport => ({
  outcome: 'failure',
  tool_name: 'search_issues',
  source: 'claude-code',
  details,
  metadata: { model: 'x-1' },
  ...extra,
});
const terms = (details: string, extra: Partial<GroupableReport> = {}) =>
  Object.keys(fingerprint(report(details, extra)).terms);

/** An issue made of these reports, in order, as the grouper would store it. */
function issue(issueId: string, ...reports: GroupableReport[]): Candidate {
  const signatures = reports.map(fingerprint);
  const [first, ...rest] = signatures;
  if (!first) throw new Error('an issue needs a report');
  return { issueId, signature: rest.reduce(mergeSignatures, first), memberCount: reports.length };
}

describe('normalisation', () => {
  it('turns ids, uuids, hex, numbers, paths, urls, timestamps and quoted values into placeholders', () => {
    const text = normaliseText(
      'Request 3f2a9c1e-7b4d-4e8a-9c1f-2d3e4f5a6b7c to https://api.example.com/v1/x?page=2 failed at 2024-05-01T12:03:44Z ' +
        'reading /var/log/agent/run.log (sha 9f8e7d6c5b, order ord_20391) with value "a=1;b=2" after 45 tries',
    );
    for (const placeholder of ['#id', '#url', '#time', '#path', '#hex', '#quoted', '#num']) {
      expect(text).toContain(placeholder);
    }
    expect(text).not.toMatch(/3f2a9c1e|example\.com|2024|var\/log|9f8e7d6c5b|20391|a=1|45/);
  });

  it('keeps a quoted error message and a quoted parameter name as words', () => {
    expect(terms('failed with "query returned too many series (limit 10000)"')).toEqual(
      expect.arrayContaining(['seri', 'limit', 'queri']),
    );
    expect(terms("the 'since' parameter")).toContain('sinc');
  });

  it('gives two reports that differ only in their ids, paths and numbers the same terms', () => {
    expect(
      terms('Timed out after 30s reading /srv/a/b.txt for job 8812, request id 0x1f3a'),
    ).toEqual(
      terms('Timed out after 95 s reading /home/agent/c/d.json for job 17, request id 0xbeef'),
    );
  });

  it('lowercases, stems, drops stop words and splits identifiers', () => {
    expect(terms('The Pagination is BROKEN when paginating')).toEqual(['broken', 'pagin']);
    expect(terms('nextPageToken was ignored')).toEqual(
      expect.arrayContaining(['next', 'page', 'token']),
    );
  });

  it('maps the usual phrasings of a timeout, a refused credential and a rate limit to one concept', () => {
    for (const text of [
      'it timed out',
      'the call took too long',
      'deadline exceeded',
      'got a 504',
      'Zeitüberschreitung',
      'tiempo de espera agotado',
      'délai dépassé',
    ]) {
      expect(terms(text), text).toContain('#timeout');
    }
    for (const text of [
      'HTTP 401',
      'unauthorized',
      'permission denied',
      '403 Forbidden',
      'insufficient scope',
      'Zugriff verweigert',
      'acceso denegado',
      'accès refusé',
    ]) {
      expect(terms(text), text).toContain('#auth');
    }
    for (const text of ['returned 429', 'rate limited', 'too many requests', 'trop de requêtes']) {
      expect(terms(text), text).toContain('#ratelimit');
    }
  });

  it('reads a number as an HTTP status only where it is one', () => {
    expect(terms('the server answered with 500')).toContain('#servererror');
    expect(terms('limit=500 returns only 100 rows')).not.toContain('#servererror');
  });

  it('leaves the tool name out of the terms: every report about a tool says it', () => {
    expect(terms('search_issues search failed on issues')).not.toEqual(
      expect.arrayContaining(['search']),
    );
  });
});

describe('signatures', () => {
  it('are plain JSON that parse back to the same signature and grouping', () => {
    const signature = fingerprint(report('Pagination repeats page 1 on page 2'));
    const parsed = Signature.parse(JSON.parse(JSON.stringify(signature)));
    expect(parsed).toEqual(signature);
    const candidate = issue('a', report('page 2 returns the same issues as page 1'));
    expect(assign(parsed, [candidate])).toEqual(assign(signature, [candidate]));
  });

  it('are the same, frozen, for the same input: safe to share between reports', () => {
    const first = fingerprint(report('Page 2 repeats page 1.'));
    expect(fingerprint(report('Page 2 repeats page 1.', { source: 'other-agent' }))).toEqual(first);
    expect(Object.isFrozen(first) && Object.isFrozen(first.terms)).toBe(true);
    expect(fingerprint(report('Page 2 repeats page 1.', { outcome: 'request' })).kind).toBe(
      'request',
    );
  });

  it('sort failure, confusing and gave_up into one kind, successes and requests into their own', () => {
    expect(fingerprint(report('x', { outcome: 'gave_up' })).kind).toBe('problem');
    expect(fingerprint(report('x', { outcome: 'confusing' })).kind).toBe('problem');
    expect(fingerprint(report('x', { outcome: 'success' })).kind).toBe('success');
    expect(fingerprint(report('x', { outcome: 'request' })).kind).toBe('request');
  });

  it('merge into a centroid that counts each term once per report and stays bounded', () => {
    const merged = issue(
      'a',
      report('pagination cursor ignored'),
      report('pagination repeats'),
    ).signature;
    expect(merged.members).toBe(2);
    expect(merged.terms.pagin).toBe(2);
    expect(merged.terms.cursor).toBe(1);
    expect(merged.words).toBeUndefined();

    const many = Array.from({ length: 60 }, (_, index) =>
      report(
        `${['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'][index % 6]}${'x'.repeat(index % 7)} word${String.fromCharCode(97 + (index % 26))}${String.fromCharCode(97 + ((index * 7) % 26))} pagination`,
      ),
    );
    const big = issue('b', ...many).signature;
    expect(Object.keys(big.terms).length).toBeLessThanOrEqual(MAX_ISSUE_TERMS);
    expect(big.terms.pagin).toBe(60);
  });

  it('merge a report k times at once as k merges one after another, trimmed issues included', () => {
    // Words, not numbers (those become placeholders): three of their own a report.
    const word = (n: number) =>
      [...n.toString(26)].map((d) => String.fromCharCode(97 + Number.parseInt(d, 26))).join('');
    const many = Array.from({ length: 100 }, (_, index) =>
      report(
        `zz${word(index)} yy${word(index)} xx${word(index)} pagination cursor ${index % 5 === 0 ? 'rare' : ''}`,
      ),
    );
    const full = issue('full', ...many).signature;
    expect(Object.keys(full.terms)).toHaveLength(MAX_ISSUE_TERMS);
    const small = issue('small', report('pagination cursor ignored')).signature;
    for (const base of [small, full]) {
      for (const joining of [report('pagination cursor ignored'), report('brand new words here')]) {
        const signature = fingerprint(joining);
        for (const times of [1, 2, 7]) {
          let oneByOne = base;
          for (let i = 0; i < times; i += 1) oneByOne = mergeSignatures(oneByOne, signature);
          expect(mergeRepeats(base, signature, times)).toEqual(oneByOne);
        }
      }
    }
  });
});

describe('assign', () => {
  const pagination = issue(
    'pagination',
    report('Page 2 returns the same issues as page 1; the cursor is ignored.'),
    report('Pagination broken: next_cursor gives back the first page again.'),
  );
  const dates = issue(
    'dates',
    report('since=2024-03-01 fails with "invalid date format".'),
    report('The date filter rejects ISO dates as an invalid date format.'),
  );
  const permissions = issue('permissions', report('403 Forbidden searching a private repo.'));

  it('joins a differently worded report of the same problem and says why', () => {
    const assignment = assign(
      fingerprint(report('Every page after the first repeats page one, paging never advances.')),
      [dates, pagination, permissions],
    );
    expect(assignment.issueId).toBe('pagination');
    expect(assignment.reason).toMatch(
      /^same tool search_issues, 0\.\d\d similar to its 2 reports \(shared: .*page.*\)$/,
    );
    expect(assignment.similarity).toBeGreaterThan(0.2);
  });

  it('opens a new issue for a different problem on the same tool and says how close the nearest was', () => {
    const assignment = assign(
      fingerprint(report('Results are sorted oldest first although I asked for newest first.')),
      [dates, pagination, permissions],
    );
    expect(assignment.issueId).toBeNull();
    expect(assignment.reason).toMatch(
      /^new problem: the closest problem of search_issues is only 0\.\d\d similar \(joining takes 0\.18\)$/,
    );
  });

  it('joins the same timeout reported as failure by one agent and gave_up by the next', () => {
    const timeout = issue(
      'timeout',
      report('search_issues timed out after 30 seconds on an org-wide query'),
    );
    const assignment = assign(
      fingerprint(
        report('Org-wide searches took too long, waited two minutes and gave up.', {
          outcome: 'gave_up',
        }),
      ),
      [pagination, timeout],
    );
    expect(assignment.issueId).toBe('timeout');
  });

  it('joins a report in another language to its problem', () => {
    const timeout = issue(
      'timeout',
      report('Query timed out after 30 seconds.'),
      report('Timeout: the search never returned.'),
    );
    for (const details of [
      'Zeitüberschreitung nach 60 Sekunden.',
      'Se agotó el tiempo de espera de la búsqueda.',
      'Délai d’attente dépassé pour la recherche.',
    ]) {
      expect(assign(fingerprint(report(details)), [pagination, timeout]).issueId, details).toBe(
        'timeout',
      );
    }
  });

  it('puts every success of a tool in its one success issue, whatever it says', () => {
    const successes = issue('ok', report('Found the issue I needed.', { outcome: 'success' }));
    const assignment = assign(fingerprint(report('Worked.', { outcome: 'success' })), [successes]);
    expect(assignment).toMatchObject({
      issueId: 'ok',
      reason: 'same tool search_issues: every success of a tool joins its successes issue',
    });
    expect(assign(fingerprint(report('Worked.', { outcome: 'success' })), [])).toMatchObject({
      issueId: null,
      reason: 'new success: the first success of search_issues',
    });
  });

  it('keeps three different feature requests on one tool apart', () => {
    const requests = [
      'Please add sorting by reactions so I can rank issues by interest.',
      'Please add an assignee filter so I can list issues assigned to someone.',
      'Please include the issue body in the results to save a call per issue.',
    ].map((details) => fingerprint(report(details, { outcome: 'request' })));
    const issues: Candidate[] = [];
    for (const [index, signature] of requests.entries()) {
      const assignment = assign(signature, issues);
      expect(assignment.issueId, assignment.reason).toBeNull();
      expect(assignment.reason).toMatch(/^new request: /);
      issues.push({ issueId: `r${index}`, signature, memberCount: 1 });
    }
  });

  it('groups reports without a tool name among themselves and says so', () => {
    const untitled = issue('untitled', report('Pagination repeats page 1.', { tool_name: null }));
    const joined = assign(fingerprint(report('Page 2 repeats page 1.', { tool_name: null })), [
      untitled,
    ]);
    expect(joined.issueId).toBe('untitled');
    expect(joined.reason).toMatch(/^no tool named either, 0\.\d\d similar to its 1 report/);
    expect(
      assign(fingerprint(report('Dates are rejected.', { tool_name: null })), [untitled]).reason,
    ).toMatch(
      /^new problem: the closest problem of reports without a tool name is only 0\.\d\d similar/,
    );
  });

  it('take a moved report back out of an issue, to nothing when it was the last one', () => {
    const moved = fingerprint(report('pagination cursor ignored'));
    const before = issue('a', report('pagination repeats'), report('pagination repeats')).signature;
    const after = removeFromSignature(mergeSignatures(before, moved), moved);
    expect(after).toEqual(before);
    expect(removeFromSignature(moved, moved)).toBeNull();
  });

  it('merges two issues into one centroid that the next reports of either problem join', () => {
    const cursor = issue(
      'cursor',
      report('The cursor is ignored.'),
      report('next_cursor is ignored.'),
    );
    const pages = issue('pages', report('Page 2 repeats page 1.'));
    const merged: Candidate = {
      issueId: 'cursor',
      signature: mergeSignatures(cursor.signature, pages.signature),
      memberCount: 3,
    };
    expect(merged.signature.members).toBe(3);
    expect(assign(fingerprint(report('Page 3 repeats page 1.')), [merged]).issueId).toBe('cursor');
    expect(assign(fingerprint(report('cursor ignored')), [merged]).issueId).toBe('cursor');
  });

  it('only compares with candidates of the same tool and kind', () => {
    const otherTool = issue(
      'other-tool',
      report('Page 2 repeats page 1.', { tool_name: 'list_pulls' }),
    );
    const request = issue('request', report('Page 2 repeats page 1.', { outcome: 'request' }));
    expect(
      assign(fingerprint(report('Page 2 repeats page 1.')), [otherTool, request]).issueId,
    ).toBeNull();
  });

  it(`reads at most ${CANDIDATE_LIMIT} candidates, the first ones given`, () => {
    const fillers = Array.from({ length: CANDIDATE_LIMIT }, (_, index) =>
      issue(
        `filler-${index}`,
        report(`Unrelated problem number ${index} with the calendar sync widget`),
      ),
    );
    const signature = fingerprint(report('Page 2 returns the same issues as page 1.'));
    expect(assign(signature, [...fillers, pagination]).issueId).toBeNull();
    expect(assign(signature, [pagination, ...fillers]).issueId).toBe('pagination');
  });

  it('is deterministic: equal similarity goes to the larger issue, then the smaller id', () => {
    const signature = fingerprint(report('cursor ignored'));
    const one = issue('b', report('cursor ignored'));
    const same = issue('a', report('cursor ignored'));
    expect(assign(signature, [one, same]).issueId).toBe('a');
    expect(assign(signature, [same, one]).issueId).toBe('a');
    const bigger = { ...issue('z', report('cursor ignored'), report('cursor ignored')) };
    expect(assign(signature, [one, same, bigger]).issueId).toBe('z');
  });
});

describe('pinned exemplars (the grouping remembers moves)', () => {
  const pagination = issue(
    'pagination',
    report('Page 2 returns the same issues as page 1.'),
    report('Pagination repeats the first page.'),
  );
  const moved = fingerprint(
    report('Page 2 returns the same issues as page 1 when the label filter has a space in it.'),
  );

  it('sends a report like the moved one where the developer moved it, with a reason saying so', () => {
    const assignment = assign(
      fingerprint(
        report('With a space in the label filter, page 2 returns the same issues as page 1.'),
      ),
      [pagination],
      [{ issueId: 'label-space', signature: moved }],
    );
    expect(assignment.issueId).toBe('label-space');
    expect(assignment.reason).toMatch(
      /^same tool search_issues, [01]\.\d\d similar to a report a developer moved here/,
    );
  });

  it('leaves reports that are merely related to the moved one where similarity puts them', () => {
    const assignment = assign(
      fingerprint(report('Pagination is broken: next page gives the first page again.')),
      [pagination],
      [{ issueId: 'label-space', signature: moved }],
    );
    expect(assignment.issueId).toBe('pagination');
  });
});

describe('titleFor', () => {
  it('titles an issue with the first sentence of its most typical report, cut at a word', () => {
    // The second shares the most with the others: the cursor with the first, the pages with the third.
    const title = titleFor([
      report('The cursor is ignored. Details follow.'),
      report('Page 2 repeats page 1 because the cursor is ignored. I tried three times.'),
      report('Page 2 repeats page 1!'),
    ]);
    expect(title).toBe('Page 2 repeats page 1 because the cursor is ignored');
    const long = titleFor([report(`${'A very long complaint about the pagination '.repeat(5)}.`)]);
    expect(long.length).toBeLessThanOrEqual(TITLE_MAX_LENGTH);
    expect(long).toMatch(/\w…$/);
  });

  it('titles the successes of a tool by the tool', () => {
    expect(titleFor([report('Worked.', { outcome: 'success' })])).toBe(
      'Successful calls of search_issues',
    );
  });
});

describe('mergeSignatures', () => {
  /** Its definition: the MAX_ISSUE_TERMS most frequent terms, ties by name, listed by name. */
  function reference(a: Signature, b: Signature): Record<string, number> {
    const counts = new Map(Object.entries(a.terms));
    for (const [term, n] of Object.entries(b.terms)) counts.set(term, (counts.get(term) ?? 0) + n);
    const byName = (x: string, y: string) => (x < y ? -1 : x > y ? 1 : 0);
    const kept = [...counts]
      .sort(([x, m], [y, n]) => n - m || byName(x, y))
      .slice(0, MAX_ISSUE_TERMS)
      .sort(([x], [y]) => byName(x, y));
    return Object.fromEntries(kept);
  }

  it('gives exactly its definition, term order included, on the fast path and off it', () => {
    const words = Array.from({ length: 400 }, (_, i) => `w${i.toString(36)}`);
    // Terms a plain object would inherit, and integer-like ones that enumerate first.
    words.push('constructor', 'toString', '42', '7');
    let seed = 7;
    const random = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const signatureOf = (count: number): Signature => {
      const terms: Record<string, number> = {};
      for (const w of words.filter(() => random() < count / words.length).sort())
        terms[w] = 1 + Math.floor(random() * 3);
      return { ...fingerprint(report('x')), members: 1, terms };
    };
    let fast = 0;
    for (let round = 0; round < 300; round += 1) {
      let issue = signatureOf(round % 3 === 0 ? 300 : 60);
      for (let k = 0; k < 5; k += 1) {
        // Half the time a report whose terms the issue already has: the fast path.
        const report = round % 2 === 0 ? { ...issue, members: 1 } : signatureOf(20);
        const expected = JSON.stringify(reference(issue, report));
        const merged = mergeSignatures(issue, report);
        expect(JSON.stringify(merged.terms)).toBe(expected);
        if (Object.keys(report.terms).every((t) => Object.hasOwn(issue.terms, t))) fast += 1;
        issue = merged;
      }
    }
    expect(fast).toBeGreaterThan(500);
  });
});
