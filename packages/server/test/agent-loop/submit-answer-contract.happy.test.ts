import { SubmitReportResponse } from '@debrief/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';
import { call } from '../support/http.js';

/** What agents are told of the submit answer's `issue`: /openapi.json and /skill.md. */
describe('the submit answer in the published documents', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('sqlite');
  });
  afterAll(() => server.close());

  it('/openapi.json documents issue on SubmitReportResponse, with an example that parses', async () => {
    const doc = (await call(`${server.url}/openapi.json`)).body;
    const schema = doc.components.schemas.SubmitReportResponse;
    expect(schema.required).not.toContain('issue');
    expect(schema.properties.issue.description).toContain('agent_note');
    const issue = schema.properties.issue.$ref
      ? doc.components.schemas[schema.properties.issue.$ref.split('/').pop()]
      : schema.properties.issue;
    expect(Object.keys(issue.properties).sort()).toEqual(['agent_note', 'id', 'status']);
    expect(issue.required.sort()).toEqual(['id', 'status']);
    const created = doc.paths['/v1/reports'].post.responses['201'].content['application/json'];
    const example = SubmitReportResponse.parse(created.example);
    expect(example.issue).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      status: 'resolved',
      agent_note: expect.any(String),
    });
  });

  it('/skill.md says what the issue field means and what to do with it', async () => {
    const skill = String((await call(`${server.url}/skill.md`)).body);
    expect(skill).toContain('### When the answer carries `issue`');
    expect(skill).toMatch(/`agent_note`.*developer's message to you/);
    expect(skill).toContain('do not report the same problem again');
  });
});
