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
      '500',
      '502',
      '503',
    ]);
    // No credentials: a host document with root-level security must not make it look protected.
    expect(feedbackOpenApi.post.security).toEqual([]);
    expect(feedbackOpenApi.post.operationId).toBe('reportFeedback');
    const created = feedbackOpenApi.post.responses['201'].content['application/json'].schema as any;
    expect(created.properties.issue.properties.agent_note.type).toBe('string');
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

  it('takes an operationId per mount, so two mounts keep the document valid', () => {
    const paths = {
      ...feedbackOpenApiPaths('/v1/feedback', { operationId: 'reportFeedbackV1' }),
      ...feedbackOpenApiPaths('/v2/feedback', { operationId: 'reportFeedbackV2' }),
    };
    expect(Object.values(paths).map((item) => item.post.operationId)).toEqual([
      'reportFeedbackV1',
      'reportFeedbackV2',
    ]);
  });
});
