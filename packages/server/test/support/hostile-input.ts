import { request } from 'node:http';
import { OUTCOMES } from '@debrief/protocol';
import fc from 'fast-check';
import type { Tenant } from '../../../../test/harness/test-server.js';

/** Generators of hostile input for fuzz.security.test.ts, and a raw HTTP client. */

export interface RawResponse {
  status: number;
  contentType: string;
  text: string;
}

/** node:http rather than fetch: the path and the body bytes go out exactly as generated. */
export function raw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<RawResponse> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          text: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    '   ',
    '\u0000',
    'nul\u0000inside',
    '\ud800',
    '\udfff lone surrogate',
    '🙂'.repeat(300),
    'x'.repeat(10_001),
    't'.repeat(201),
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    '1e309',
    '-0',
    'NaN',
    'null',
    'true',
    "' OR 1=1 --",
    '<script>alert(1)</script>',
    '%00',
    '../../etc/passwd',
  ),
  fc.integer().map(String),
);
const fieldValue = fc.oneof(
  hostileString,
  fc.jsonValue({ maxDepth: 3 }),
  fc.constantFrom(undefined, null, 0, -1, 1e308, true, [], {}),
);

export function reportObject(tenant: Tenant) {
  return fc.record(
    {
      ingest_key: fc.oneof(
        fc.constant(tenant.ingestKey),
        fc.constant(tenant.ingestKey),
        fc.constant(tenant.apiKey),
        fc.constant(`wk_${'0'.repeat(32)}`),
        fc.constant(tenant.ingestKey.toUpperCase()),
        fieldValue,
      ),
      outcome: fc.oneof(fc.constantFrom(...OUTCOMES), fieldValue),
      details: fc.oneof(fc.string({ minLength: 1, maxLength: 200 }), fieldValue),
      tool_name: fieldValue,
      source: fieldValue,
      metadata: fc.oneof(
        fc.dictionary(hostileString, fc.oneof(fieldValue, hostileString), { maxKeys: 25 }),
        fieldValue,
      ),
      __proto__: fieldValue,
      constructor: fieldValue,
    },
    { requiredKeys: [] },
  );
}

/** A generated body, printed short in counterexamples (some are 200 KB). */
function preview(bytes: Buffer) {
  return Object.assign(bytes, {
    [fc.toStringMethod]: () =>
      `Buffer(${bytes.length}) ${JSON.stringify(bytes.subarray(0, 160).toString('utf8'))}`,
  });
}

/** Every shape of body: JSON objects with wrong types, raw bytes, truncation, nesting, size. */
export function body(tenant: Tenant) {
  return bodyBytes(tenant).map(preview);
}

function bodyBytes(tenant: Tenant) {
  const object = reportObject(tenant);
  const valid = `{"ingest_key":"${tenant.ingestKey}","outcome":"success","details":"`;
  return fc.oneof(
    object.map((o) => Buffer.from(JSON.stringify(o) ?? '')),
    // Keys JSON.parse keeps as own properties, which naive merging would turn into pollution.
    fc
      .tuple(object, fieldValue)
      .map(([o, v]) =>
        Buffer.from(
          `{"__proto__":${JSON.stringify(v) ?? '1'},"constructor":{"prototype":{"polluted":true}},${(JSON.stringify(o) ?? '{}').slice(1)}`,
        ),
      ),
    fc.tuple(object, fc.nat()).map(([o, n]) => {
      const text = JSON.stringify(o) ?? '';
      return Buffer.from(text.slice(0, n % (text.length + 1)));
    }),
    fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? '')),
    fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)),
    // Invalid UTF-8 inside a string of an otherwise valid report.
    fc
      .uint8Array({ minLength: 1, maxLength: 16 })
      .map((bytes) =>
        Buffer.concat([
          Buffer.from(valid),
          Buffer.from([0xff, 0xc0, 0x80, ...bytes]),
          Buffer.from('"}'),
        ]),
      ),
    fc
      .integer({ min: 1, max: 30_000 })
      .map((depth) =>
        Buffer.from(
          `{"ingest_key":"${tenant.ingestKey}","outcome":"failure","details":"deep","metadata":${'['.repeat(depth)}${']'.repeat(depth)}}`,
        ),
      ),
    fc
      .integer({ min: 1, max: 6_000 })
      .map((depth) => Buffer.from(`${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`)),
    fc
      .integer({ min: 60_000, max: 200_000 })
      .map((size) => Buffer.from(`${valid}${'x'.repeat(size)}"}`)),
    fc.constantFrom(
      Buffer.from(''),
      Buffer.from('null'),
      Buffer.from('"string"'),
      Buffer.from('[]'),
      Buffer.from(`${valid}nul\\u0000byte"}`),
    ),
  );
}

export const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/octet-stream',
  '',
  ';;;',
);

/** Percent-encodes the UTF-8 bytes (encodeURIComponent throws on lone surrogates). */
export function percentEncode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9\-_.~]/.test(char) ? char : `%${byte.toString(16).padStart(2, '0')}`;
  }
  return out;
}

/** A query component: random text, percent-encoded properly or hostile raw escapes. */
export const queryText = fc.oneof(
  hostileString.map(percentEncode),
  fc.constantFrom(
    '%',
    '%ZZ',
    '%00',
    '%C0%AF',
    '%FF%FE',
    '%E2%82',
    '..%2F..%2F',
    '+',
    '%2B%2B',
    '[]',
    'a[b]=c',
  ),
  fc.constantFrom(
    'success',
    'failure',
    'gave_up',
    '1',
    '0',
    '100',
    '101',
    '-1',
    '1.5',
    '99999999999999999999',
    '2026-02-30',
    '2026-11-21T25:00:00Z',
    '2026-11-21',
    '2026-11-21T10:00:00+14:00',
  ),
);
export const queryString = fc
  .array(
    fc.tuple(
      fc.oneof(
        fc.constantFrom(
          'outcome',
          'tool_name',
          'source',
          'from',
          'to',
          'page',
          'limit',
          '__proto__',
          'constructor',
        ),
        queryText,
      ),
      queryText,
    ),
    { maxLength: 6 },
  )
  .map((pairs) => (pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : ''));
