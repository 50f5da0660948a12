import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../../../test/harness/test-server.js';

/**
 * The served document, linted offline by Redocly with its recommended rules: no error, and none
 * of the warnings tools trip over (operations without a 4XX, components nothing refers to).
 */
describe('/openapi.json lints clean', () => {
  let server: TestServer;
  let source: string;

  beforeAll(async () => {
    server = await startTestServer('sqlite');
    source = await (await fetch(`${server.url}/openapi.json`)).text();
  });
  afterAll(() => server.close());

  it('has no problem under the recommended ruleset', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    const described = problems.map(
      (p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`,
    );
    expect(described).toEqual([]);
  });

  it('publishes no jsonSchemaDialect, so validators read every body (OpenAPI 3.1 default)', () => {
    expect(JSON.parse(source).jsonSchemaDialect).toBeUndefined();
  });
});
