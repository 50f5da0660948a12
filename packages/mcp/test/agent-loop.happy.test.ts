import { DEBRIEF_INSTRUCTIONS, withDebriefInstructions } from '@debrief/mcp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../test/harness/test-server.js';
import { type Receiver, startReceiver } from '../../client/test/recording-receiver.js';
import { textOf } from './mcp-pair.js';
import { SDK_KITS } from './sdk-kits.js';

const KEY = `wk_${'a'.repeat(32)}`;
const NOTED_ISSUE = {
  id: 'e'.repeat(32),
  status: 'open',
  agent_note: 'Use page= instead of cursor= until 2.3.',
};

describe.each(SDK_KITS)('the agent loop on %s', (_sdk, kit) => {
  let debrief: TestServer;
  let receiver: Receiver | undefined;
  beforeAll(async () => {
    debrief = await startTestServer('sqlite');
  });
  afterAll(() => debrief.close());
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });

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
    receiver = await startReceiver((path) =>
      path === '/v1/reports'
        ? { status: 201, body: { ok: true, id: 'f'.repeat(32), issue: NOTED_ISSUE } }
        : undefined,
    );
    const url = receiver.url;
    const { client, close } = await kit.connectPair((server) =>
      kit.attach(server, { ingestKey: KEY, baseUrl: url, countCalls: false }),
    );
    try {
      const result = await client.callTool({
        name: 'report_feedback',
        arguments: { outcome: 'failure', details: 'cursor= is ignored', tool_name: 'forecast' },
      });
      expect(result.structuredContent).toEqual({ id: 'f'.repeat(32), issue: NOTED_ISSUE });
      expect(textOf(result)).toContain(
        'Their note for agents: Use page= instead of cursor= until 2.3.',
      );
    } finally {
      await close();
    }
  });
});
