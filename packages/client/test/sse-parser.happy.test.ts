import { SseParser } from '@debrief/client';
import { describe, expect, it } from 'vitest';

describe('SseParser', () => {
  it('parses events split anywhere across chunks, CRLF included', () => {
    const text =
      'retry: 2000\r\n\r\n: heartbeat\n\nevent: ready\ndata: {"a":1}\n\nid: 42\nevent: report\ndata: line1\ndata: line2\r\n\r\n';
    for (let size = 1; size <= text.length; size++) {
      const parser = new SseParser();
      const events = [];
      for (let i = 0; i < text.length; i += size)
        events.push(...parser.push(text.slice(i, i + size)));
      expect(events).toEqual([
        { event: 'ready', data: '{"a":1}', id: undefined },
        { event: 'report', data: 'line1\nline2', id: '42' },
      ]);
      expect(parser.retryMs).toBe(2000);
      expect(parser.lastEventId).toBe('42');
    }
  });

  it('defaults the event type to message and ignores unknown fields and dataless blocks', () => {
    const parser = new SseParser();
    expect(parser.push('foo: bar\n\nevent: x\n\ndata\n\n')).toEqual([
      { event: 'message', data: '', id: undefined },
    ]);
  });
});
