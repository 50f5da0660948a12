import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CORPUS_PATH,
  DEV2_PATH,
  HELDOUT2_PATH,
  HELDOUT3_PATH,
  HELDOUT4_PATH,
  HOLDOUT_PATH,
  loadCorpus,
} from '../../../scripts/grouping-evaluation.js';
import {
  fingerprint,
  type GroupableReport,
  TERMS_VERSION,
} from '../../../src/issues/grouping/index.js';

/**
 * TERMS_VERSION stamps every stored signature: when the terms a text gives change and it does
 * not, the signatures stored under the older rules are never refreshed, and reports of known
 * problems open new issues after the upgrade. So the terms of a fixed corpus (the labelled sets'
 * reports and a line per rule below) are
 * recorded with the version they belong to: a change of the rules that changes them fails here
 * until the version is bumped and the new hash recorded. It reads what the engine gives, not its
 * sources, so an upgrade of the stemmer or stop-word packages is caught too, and a comment or a
 * refactoring is not.
 */
const RECORDED = {
  termsVersion: 2,
  sha256: '3c3ce33722ad58b69bdfe690b31ec4fe893d94d26e78cf581fb78eea9c473405',
};

/** A line per rule the labelled sets may not show: camelCase fields, bounds, codes, five other languages. */
const RULE_LINES: GroupableReport[] = [
  {
    outcome: 'failure',
    tool_name: 'update_ticket',
    details: 'update_ticket rejected nextPageToken and assigneeId: unknown fields.',
  },
  {
    outcome: 'failure',
    tool_name: 'list_rows',
    details: 'limit must be at most 100, got 250; also max 2000 characters per query.',
  },
  {
    outcome: 'failure',
    tool_name: 'send_sms',
    details: 'Error 21608: the number is unverified. OVER_QUERY_LIMIT returned too.',
  },
  {
    outcome: 'failure',
    tool_name: 'refund',
    details:
      'charge_already_refunded when refunding ch_3Nk2 at 2024-06-30T10:00:00Z from /var/log/app.log',
  },
  {
    outcome: 'failure',
    tool_name: 'export',
    details: 'Zeitüberschreitung beim Export der Rechnungen nach 30 Sekunden.',
  },
  {
    outcome: 'failure',
    tool_name: 'export',
    details: 'Tiempo de espera agotado al exportar los archivos después de 2 minutos.',
  },
  {
    outcome: 'confusing',
    tool_name: 'export',
    details: "Délai d’attente dépassé lors de l'export des fichiers, paramètre inconnu.",
  },
  {
    outcome: 'gave_up',
    tool_name: 'export',
    details: 'Tempo scaduto durante il caricamento del file di 8 MB.',
  },
  {
    outcome: 'request',
    tool_name: 'export',
    details: 'Seria bom poder exportar em CSV com mais de 1000 linhas.',
  },
  { outcome: 'success', tool_name: 'export', details: 'Worked fine, exported 12 rows in 300 ms.' },
];

const corpus: GroupableReport[] = [
  ...[CORPUS_PATH, HOLDOUT_PATH, DEV2_PATH, HELDOUT2_PATH, HELDOUT3_PATH, HELDOUT4_PATH].flatMap(
    (path) => loadCorpus(path),
  ),
  ...RULE_LINES,
];

describe('the stamp of the grouping engine term rules', () => {
  it('is bumped whenever the terms of the corpus change', () => {
    const hash = createHash('sha256');
    for (const report of corpus) {
      // Terms only: the readable words beside them are for reasons, and never stored in issues.
      hash.update(`${Object.keys(fingerprint(report).terms).join(' ')}\n`);
    }
    const sha256 = hash.digest('hex');
    const recorded = TERMS_VERSION === RECORDED.termsVersion && sha256 === RECORDED.sha256;
    expect(
      recorded,
      sha256 === RECORDED.sha256
        ? `TERMS_VERSION is ${TERMS_VERSION} but the terms are those recorded for ${RECORDED.termsVersion}: record the version in this test.`
        : `The terms the grouping engine reads from the labelled sets and RULE_LINES changed (sha256 ${sha256}, recorded ${RECORDED.sha256} for TERMS_VERSION ${RECORDED.termsVersion}). ` +
            'Stored signatures made under the old rules would keep their old terms: bump TERMS_VERSION in src/issues/grouping/signature.ts ' +
            '(after the upgrade the grouper refreshes them from their reports), then record the new version and sha256 here. ' +
            `(Only the corpus changed, not the rules? Record the sha256 and keep the version.)`,
    ).toBe(true);
  });
});
