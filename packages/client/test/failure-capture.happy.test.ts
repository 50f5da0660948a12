import { CAPTURE_DETAILS_MAX, createFailureCapture, createReporter } from '@debrief/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type Receiver, startReceiver } from './recording-receiver.js';

const KEY = `wk_${'a'.repeat(32)}`;

describe('createFailureCapture', () => {
  let receiver: Receiver;
  afterEach(() => receiver?.close());

  it('turns a burst of 50 equal failures into exactly one report', async () => {
    receiver = await startReceiver();
    const reporter = createReporter({ ingestKey: KEY, baseUrl: receiver.url });
    const capture = createFailureCapture({ report: (r) => reporter.report(r) });
    for (let i = 0; i < 50; i++) {
      capture.capture({
        name: 'forecast',
        error: `upstream timed out after ${5000 + i} ms`,
        metadata: { client_name: 'agent' },
      });
    }
    await capture.settled();
    const reports = receiver.to('/v1/reports').map((r) => r.body);
    expect(reports).toEqual([
      {
        ingest_key: KEY,
        outcome: 'failure',
        details: 'upstream timed out after 5000 ms',
        tool_name: 'forecast',
        source: null,
        metadata: { client_name: 'agent', captured: true },
      },
    ]);
  });

  it('sends different failures, caps them per minute, and again after the dedupe period', async () => {
    receiver = await startReceiver();
    const reporter = createReporter({ ingestKey: KEY, baseUrl: receiver.url });
    let clock = 0;
    const capture = createFailureCapture({
      report: (r) => reporter.report(r),
      maxPerMinute: 3,
      dedupeMs: 120_000,
      now: () => clock,
    });
    for (const name of ['a', 'b', 'c', 'd', 'e']) capture.capture({ name, error: 'boom' });
    await capture.settled();
    expect(receiver.to('/v1/reports').map((r) => r.body.tool_name)).toEqual(['a', 'b', 'c']);
    clock = 61_000;
    capture.capture({ name: 'a', error: 'boom' });
    capture.capture({ name: 'd', error: 'boom' });
    clock = 121_000;
    capture.capture({ name: 'a', error: 'boom' });
    await capture.settled();
    expect(receiver.to('/v1/reports').map((r) => r.body.tool_name)).toEqual([
      'a',
      'b',
      'c',
      'd',
      'a',
    ]);
  });

  it('takes secrets out of the error text before it leaves the host', async () => {
    receiver = await startReceiver();
    const reporter = createReporter({ ingestKey: KEY, baseUrl: receiver.url });
    const capture = createFailureCapture({ report: (r) => reporter.report(r) });
    capture.capture({
      name: 'db',
      error: 'connect failed: postgres://app:hunter2secret@db.internal:5432/shop',
    });
    await capture.settled();
    const details: string = receiver.to('/v1/reports')[0]?.body.details;
    expect(details).not.toContain('hunter2secret');
    expect(details).toContain('[REDACTED:');
  });

  it('cuts long error text and never throws, even when Debrief is down', async () => {
    receiver = await startReceiver();
    const reporter = createReporter({ ingestKey: KEY, baseUrl: receiver.url });
    const capture = createFailureCapture({ report: (r) => reporter.report(r) });
    capture.capture({ name: 't', error: 'x'.repeat(50_000) });
    await capture.settled();
    expect(receiver.to('/v1/reports')[0]?.body.details).toHaveLength(CAPTURE_DETAILS_MAX);
    const down = createFailureCapture({
      report: () => Promise.reject(new Error('bug')),
      onError: () => {
        throw new Error('host callback broke');
      },
    });
    expect(() => down.capture({ name: 't', error: 'x' })).not.toThrow();
    await down.settled();
  });
});
