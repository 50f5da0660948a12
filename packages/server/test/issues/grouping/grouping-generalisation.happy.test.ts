/**
 * What lets the engine group reports about tools it was never tuned on: error codes as terms and
 * their veto, the narration it skips, stemming in the report's language, character trigrams for
 * typos and compounds. The set-wide figures are in
 * grouping-evaluation.happy.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  assign,
  type Candidate,
  fingerprint,
  type GroupableReport,
  JOIN_THRESHOLD,
  likeness,
  mergeSignatures,
} from '../../../src/issues/grouping/index.js';
import { languageOf } from '../../../src/issues/grouping/stemming.js';

const report = (details: string, tool = 'slack_post_message'): GroupableReport => ({
  outcome: 'failure',
  tool_name: tool,
  source: 'claude-code',
  details,
  metadata: null,
});
const terms = (details: string, tool?: string) =>
  Object.keys(fingerprint(report(details, tool)).terms);

function issue(issueId: string, tool: string, ...details: string[]): Candidate {
  const [first, ...rest] = details.map((text) => fingerprint(report(text, tool)));
  if (!first) throw new Error('an issue needs a report');
  return { issueId, signature: rest.reduce(mergeSignatures, first), memberCount: details.length };
}

describe('wording-independent features', () => {
  it('makes a quoted error code a term of its own, beside its words, but not the tool’s own name', () => {
    const found = terms('slack_post_message returned {"ok":false,"error":"not_in_channel"}');
    expect(found).toContain('#not_in_channel');
    expect(found).toContain('channel');
    expect(found).not.toContain('#slack_post_message');
    // JSON's literals say nothing about the problem.
    expect(found).not.toContain('fals');
    expect(terms('Error 21608: unverified number', 'send_sms')).toContain('#e21608');
    expect(terms('SQLSTATE[42701]: Duplicate column', 'db_migrate')).toContain('#e42701');
  });

  it('reads a camelCase field name as its snake_case spelling, a code term, but not a product name', () => {
    const found = terms('Argument Validation Error: assigneeId must be a UUID', 'create_ticket');
    expect(found).toContain('#assignee_id');
    expect(terms('assignee_id must be a UUID', 'create_ticket')).toContain('#assignee_id');
    expect(terms('the GitHub token expired', 'create_ticket')).not.toContain('#git_hub');
  });

  it('keeps two problems apart that name different fields in one message', () => {
    const tool = 'create_ticket';
    const labels = issue(
      'labels',
      tool,
      'Argument Validation Error: labelIds.0 must be a UUID. I passed ["bug", "backend"].',
    );
    const assignee = fingerprint(
      report(
        'Argument Validation Error: assigneeId must be a UUID. Assigning by email fails.',
        tool,
      ),
    );
    expect(assign(assignee, [labels]).issueId).toBeNull();
  });

  it('marks a shouted identifier apart from a field name, since it is as often a value', () => {
    expect(terms('missing required env var STRIPE_KEY', 'deploy_service')).toContain(
      '#stripe_key_',
    );
    expect(terms('the stripe_key field is required', 'deploy_service')).toContain('#stripe_key');
  });

  it('makes a bound an error states a code term, but not how long the agent waited', () => {
    expect(
      terms('validation_error: body.children.length should be ≤ `100`, instead was `164`.'),
    ).toContain('#n100');
    expect(terms('A page with more than 100 blocks cannot be created in one call')).toContain(
      '#n100',
    );
    expect(terms('rich_text content.length should be <= 2000, was 2481')).toContain('#n2000');
    expect(terms('The deployment stayed pending for more than 20 minutes')).not.toContain('#n20');
  });

  it('never makes __proto__ a term', () => {
    expect(terms('the field __proto__ was rejected')).not.toContain('#__proto__');
  });

  it('sends a report quoting a code to the issue of that code, though another shares more words', () => {
    const tool = 'slack_post_message';
    const notFound = issue(
      'y',
      tool,
      'channel_not_found when posting the deploy summary to the channel',
    );
    const notInChannel = issue('x', tool, '{"ok":false,"error":"not_in_channel"}');
    const quoting = assign(
      fingerprint(report('not_in_channel when posting the deploy summary', tool)),
      [notFound, notInChannel],
    );
    expect(quoting.issueId).toBe('x');
    // The same words without the code go where the words are.
    const plain = assign(fingerprint(report('when posting the deploy summary', tool)), [
      notFound,
      notInChannel,
    ]);
    expect(plain.issueId).toBe('y');
  });

  it('skips the sentence that tells what the agent was doing', () => {
    const found = terms(
      'I was asked to refund the customer’s last charge, so I called stripe_refund. The amount is too large.',
      'stripe_refund',
    );
    expect(found).not.toContain('custom');
    expect(found).not.toContain('charg');
    expect(found).toContain('#toolarge');
    const context = terms('Context: the user wanted me to check the weather. Kelvin units.');
    expect(context).not.toContain('weather');
    expect(context).toContain('kelvin');
  });

  it('does not join two problems of one task on the task’s words', () => {
    const tool = 'kubectl_apply';
    const selector = issue(
      'i1',
      tool,
      'I was asked to roll out the new deployment manifest, so I called kubectl_apply. The selector is immutable.',
    );
    const assignment = assign(
      fingerprint(
        report(
          'I was asked to roll out the new deployment manifest, so I called kubectl_apply. Unknown field "resource" in the container spec.',
          tool,
        ),
      ),
      [selector],
    );
    expect(assignment.issueId).toBeNull();
  });
});

describe('languages, typos and compounds', () => {
  it('finds a report’s language by its stop words, English on a tie', () => {
    expect(languageOf(['der', 'bot', 'ist', 'nicht', 'im', 'kanal'])).toBe('german');
    expect(languageOf(['el', 'canal', 'no', 'se', 'encuentra'])).toBe('spanish');
    expect(languageOf(['le', 'bot', 'n', 'est', 'pas', 'membre', 'du', 'canal'])).toBe('french');
    expect(languageOf(['channel_not_found'])).toBe('english');
  });

  it('stems German words with the German stemmer, so plural and singular meet', () => {
    expect(terms('Die Lieferungen werden nicht erstellt.')).toContain('liefer');
    expect(terms('Die Lieferung wird nicht erstellt.')).toContain('liefer');
  });

  it('gives an English word borrowed into another language its English stem too', () => {
    const german = terms(
      'Der Build bricht ab, weil die dependency im Cache fehlt und das Paket nicht gefunden wird.',
    );
    expect(german).toContain('dependency');
    expect(german).toContain('depend');
    expect(terms('The build breaks because the dependency is missing')).toContain('depend');
  });

  it('translates every form of a word the bilingual map knows in one form', () => {
    // The map knows `rechnung` and `herramienta`; their plurals reach the same English word.
    expect(terms('Die Rechnungen werden nicht erstellt.')).toContain('invoic');
    expect(terms('Die Rechnung wird nicht erstellt.')).toContain('invoic');
    expect(terms('Las herramientas fallan con este archivo.')).toContain('tool');
  });

  it('joins a misspelt report to the issue of the words it misspells', () => {
    const tool = 'resize_image';
    const rotated = issue(
      'i1',
      tool,
      'Portrait photos come out rotated, the orientation is ignored.',
      'Thumbnails of portrait photos are rotated sideways.',
    );
    const other = issue('i2', tool, 'HEIC files are not supported, only jpg and png.');
    const assignment = assign(
      fingerprint(report('Portriat phtos come out roated, orientaton ignored.', tool)),
      [other, rotated],
    );
    expect(assignment.issueId).toBe('i1');
    expect(assignment.similarity).toBeGreaterThanOrEqual(JOIN_THRESHOLD.problem);
  });
});

describe('likeness (for a list of similar issues)', () => {
  it('scores two issues of one problem above the join threshold and names what they share', () => {
    const tool = 'slack_post_message';
    const one = issue('i1', tool, 'not_in_channel: the bot must be invited to the channel first');
    const two = issue('i2', tool, '{"ok":false,"error":"not_in_channel"} — invite the bot first');
    const other = issue('i3', tool, 'Markdown links are shown raw, bold is not converted');
    const alike = likeness(two.signature, one.signature);
    expect(alike.similarity).toBeGreaterThanOrEqual(JOIN_THRESHOLD.problem);
    expect(alike.reason).toMatch(/^0\.\d\d similar, shared: .*not_in_channel/);
    expect(likeness(other.signature, one.signature).similarity).toBeLessThan(alike.similarity);
  });

  it('says when the two are of another tool, which the engine never joins', () => {
    const a = issue('i1', 'send_sms', 'Error 21211: invalid To number');
    const b = issue('i2', 'crm_update_contact', 'Error 21211: invalid To number');
    expect(likeness(a.signature, b.signature).reason).toContain('another tool');
  });
});
