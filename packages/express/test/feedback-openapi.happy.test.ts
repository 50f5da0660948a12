import { feedbackOpenApi, feedbackOpenApiPaths } from '@debrief/express';
import { OUTCOMES } from '@debrief/protocol';
import { describe, expect, it } from 'vitest';

describe('feedbackOpenApi', () => {
  it('is an OpenAPI 3.1 path item generated from the protocol schema', () => {
    const schema = feedbackOpenApi.post.requestBody.content['application/json'].schema as any;
    expect(schema.$schema).toBeUndefined();
    expect(schema.properties.outcome.enum).toEqual([...OUTCOMES]);
    expect(schema.required).toEqual(['outcome', 'details']);
    expect(schema.properties.source).toBeUndefined();
    expect(Object.keys(feedbackOpenApi.post.responses)).toEqual([
      '201',
      '400',
      '413',
      '429',
      '502',
    ]);
    for (const outcome of OUTCOMES) expect(feedbackOpenApi.post.description).toContain(outcome);
    // Serializable as is into the host's document.
    expect(JSON.parse(JSON.stringify(feedbackOpenApi))).toEqual(feedbackOpenApi);
  });

  it('keys the path item by a custom path', () => {
    expect(feedbackOpenApiPaths()).toEqual({ '/feedback': feedbackOpenApi });
    expect(Object.keys(feedbackOpenApiPaths('api/agent-feedback'))).toEqual([
      '/api/agent-feedback',
    ]);
  });
});
