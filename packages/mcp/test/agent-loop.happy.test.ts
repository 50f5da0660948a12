import { DEBRIEF_INSTRUCTIONS, withDebriefInstructions } from '@debrief/mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { AGENT_LOOP_ENV, notedIssue, reportsOf } from '../../client/test/support/real-debrief.js';
import { textOf } from './mcp-pair.js';
import { SDK_KITS } from './sdk-kits.js';

const KEY = `wk_${'a'.repeat(32)}`;

describe.each(SDK_KITS)('the agent loop on %s', (_sdk, kit) => {
  let debrief: TestServer;
  beforeAll(async () => {
    debrief = await startTestServer('sqlite', AGENT_LOOP_ENV);
  });
  afterAll(() => debrief.close());

  it('gives the client the instructions, after the host’s own', async () => {
    const { client, close } = await kit.connectPair(
      (server) => kit.attach(server, { ingestKey: KEY, countCalls: false }),
      { instructions: withDebriefInstructions('Call forecast with a city id.') },
    );
    try {
      const instructions: string = client.getInstructions();
      expect(instructions.startsWith('Call forecast with a city id.\n\n')).toBe(true);
      expect(instructions.endsWith(DEBRIEF_INSTRUCTIONS)).toBe(true);
      expect(DEBRIEF_INSTRUCTIONS).toContain('`report_feedback`');
      expect(DEBRIEF_INSTRUCTIONS).toMatch(/note for agents/);
    } finally {
      await close();
    }
  });

  it('declares an output schema and answers a stored report with structured {id}', async () => {
    const t = await debrief.tenant();
    const { client, close } = await kit.connectPair((server) =>
      kit.attach(server, { ingestKey: t.ingestKey, baseUrl: debrief.url, countCalls: false }),
    );
    try {
      const { tools } = await client.listTools();
      const tool = tools.find((x: { name: string }) => x.name === 'report_feedback');
      expect(tool.outputSchema.properties.id.type).toBe('string');
      expect(tool.outputSchema.properties.issue).toBeDefined();
      const result = await client.callTool({
        name: 'report_feedback',
        arguments: { outcome: 'failure', details: 'forecast said 500' },
      });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/) });
      expect(textOf(result)).toContain(JSON.stringify(result.structuredContent));
    } finally {
      await close();
    }
  });

  it('hands the developers’ note to the agent, in the structured answer and the text', async () => {
    const t = await debrief.tenant();
    const note = 'Use page= instead of cursor= until 2.3.';
    const issue = await notedIssue(
      debrief,
      t,
      { tool_name: 'forecast', details: 'Pagination broken: cursor= returns page 1 again' },
      { agent_note: note, note: 'private: the cache layer drops the cursor' },
    );
    const { client, close } = await kit.connectPair((server) =>
      kit.attach(server, { ingestKey: t.ingestKey, baseUrl: debrief.url, countCalls: false }),
    );
    try {
      const result = await client.callTool({
        name: 'report_feedback',
        arguments: {
          outcome: 'failure',
          tool_name: 'forecast',
          details: 'pagination broken, cursor= gives page 1 again',
        },
      });
      // The note of the issue the report joined, and nothing else about the project.
      expect(result.structuredContent).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        issue: { id: issue.id, status: 'open', agent_note: note },
      });
      expect(textOf(result)).toContain(`Their note for agents: ${note}`);
      expect(JSON.stringify(result)).not.toContain('private');
      const stored = await reportsOf(debrief, t);
      expect(stored.find((r) => r.id === result.structuredContent.id)?.issue_id).toBe(issue.id);
    } finally {
      await close();
    }
  });

  it('tells the agent an issue is resolved, without a note to pass on', async () => {
    const t = await debrief.tenant();
    const issue = await notedIssue(
      debrief,
      t,
      { tool_name: 'forecast', details: 'Timeout talking to the upstream weather API' },
      { status: 'resolved', note: 'private: raised the pool size' },
    );
    const { client, close } = await kit.connectPair((server) =>
      kit.attach(server, { ingestKey: t.ingestKey, baseUrl: debrief.url, countCalls: false }),
    );
    try {
      const result = await client.callTool({
        name: 'report_feedback',
        arguments: {
          outcome: 'failure',
          tool_name: 'forecast',
          details: 'timeout talking to the upstream weather API',
        },
      });
      expect(result.structuredContent).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{32}$/),
        issue: { id: issue.id, status: 'resolved' },
      });
      expect(textOf(result)).toContain('the developers have marked as fixed');
      expect(textOf(result)).not.toContain('note for agents');
      expect(JSON.stringify(result)).not.toContain('private');
    } finally {
      await close();
    }
  });
});
