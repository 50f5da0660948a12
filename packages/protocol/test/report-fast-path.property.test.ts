import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldErrors, OUTCOMES, parsePlainReportInput, ReportInput } from '../src/index.js';
import { utf8Length } from '../src/utf8.js';

/** Any UTF-16 code unit, lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));
const anyText = fc.string({ unit: codeUnit, maxLength: 40 });

/** Strings around every limit of ReportInput, padded, empty, multi-byte or with a NUL. */
const edgyText = fc.oneof(
  anyText,
  fc.constantFrom('', '   ', ' x ', 'ok', 'a\u0000b', '\u00e9', '\u{1F600}', '\ud800'),
  fc
    .tuple(fc.constantFrom(199, 200, 201, 9_999, 10_000, 10_001), fc.constantFrom('a', ' ', 'é'))
    .map(([n, c]) => c.repeat(n)),
  fc
    .tuple(fc.constantFrom(' ', '\n'), fc.constantFrom(200, 10_000))
    .map(([pad, n]) => `${pad}${'b'.repeat(n)}${pad}`),
);

const nonString = fc.oneof(
  fc.constant(undefined),
  fc.constant(null),
  fc.integer(),
  fc.boolean(),
  fc.constant([]),
  fc.constant({}),
);

/** Mostly plausible, sometimes wrong: both sides of every check get exercised. */
const mostly = <T, U>(plausible: fc.Arbitrary<T>, wrong: fc.Arbitrary<U>) =>
  fc.oneof({ arbitrary: plausible, weight: 6 }, { arbitrary: wrong, weight: 1 });

const metadataValue = mostly(
  fc.oneof(edgyText, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean()),
  fc.constantFrom(null, ['nested'], { nested: true }),
);
const metadataKey = mostly(anyText, fc.constantFrom('__proto__', 'constructor', '0', 'toString'));
const metadata = fc.oneof(
  fc.dictionary(metadataKey, metadataValue, { maxKeys: 22 }),
  // Around the 20-key limit.
  fc
    .integer({ min: 19, max: 21 })
    .map((n) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`key${i}`, i]))),
  // Near the 2048-byte limit, with characters of one, two and three bytes.
  fc
    .tuple(fc.integer({ min: 600, max: 2_100 }), fc.constantFrom('a', 'é', '€'))
    .map(([n, c]) => ({ long: c.repeat(n) })),
  nonString,
);

const body = fc.record(
  {
    outcome: mostly(
      fc.constantFrom(...OUTCOMES),
      fc.oneof(fc.constantFrom('SUCCESS', 'ok', ''), nonString),
    ),
    details: mostly(edgyText, nonString),
    tool_name: mostly(edgyText, nonString),
    source: mostly(edgyText, nonString),
    metadata,
    ingest_key: fc.constant('wk_0123456789abcdef0123456789abcdef'),
  },
  { requiredKeys: ['outcome', 'details'] },
);

// Bodies arrive as JSON: run every one through the parser, as the route does.
const asReceived = (value: unknown) => JSON.parse(JSON.stringify(value)) as Record<string, unknown>;

/** Any JSON value, for fields whose every wrong type must be refused alike. */
const anyJson = fc.jsonValue({ maxDepth: 2 });

/** Bodies far from plausible: each field any JSON value or absent, plus unknown fields. */
const wildBody = fc.record(
  {
    outcome: fc.oneof(fc.constantFrom(...OUTCOMES), anyJson),
    details: fc.oneof(edgyText, anyJson),
    tool_name: fc.oneof(edgyText, anyJson),
    source: fc.oneof(edgyText, anyJson),
    metadata: fc.oneof(metadata, fc.dictionary(anyText, anyJson, { maxKeys: 4 }), anyJson),
    extra: anyJson,
  },
  { requiredKeys: [] },
);

/** What a validator decides about a body: the value it accepts, or each field's error. */
type Decision =
  | { accepted: true; value: unknown }
  | { accepted: false; errors: ReturnType<typeof fieldErrors> };

/** The schema alone: the definition of a valid report and of every error. */
function bySchema(received: Record<string, unknown>): Decision {
  const parsed = ReportInput.safeParse(received);
  return parsed.success
    ? { accepted: true, value: parsed.data }
    : { accepted: false, errors: fieldErrors(parsed.error) };
}

/** As POST /v1/reports validates: the fast path first, the schema for what it leaves. */
function asSubmitted(received: Record<string, unknown>): Decision {
  const fast = parsePlainReportInput(received);
  return fast === undefined ? bySchema(received) : { accepted: true, value: fast };
}

describe('the report validator (fast path, then the schema)', () => {
  it('decides every body as the schema alone: acceptance, value, error codes and fields', () => {
    let accepted = 0;
    let refused = 0;
    fc.assert(
      fc.property(fc.oneof(body, wildBody), (generated) => {
        const received = asReceived(generated);
        const decision = asSubmitted(received);
        if (decision.accepted) accepted++;
        else refused++;
        expect(decision).toStrictEqual(bySchema(received));
      }),
      { numRuns: 3_000 },
    );
    // Both answers are reached often enough for the agreement to mean something.
    expect(accepted).toBeGreaterThan(100);
    expect(refused).toBeGreaterThan(1_000);
  });
});

describe('parsePlainReportInput', () => {
  it('answers only where the schema agrees, and then with the same value', () => {
    let answered = 0;
    fc.assert(
      fc.property(body, (generated) => {
        const received = asReceived(generated);
        const fast = parsePlainReportInput(received);
        if (fast === undefined) return;
        answered++;
        const parsed = ReportInput.safeParse(received);
        expect(parsed.success).toBe(true);
        expect(fast).toStrictEqual(parsed.data);
      }),
      { numRuns: 3_000 },
    );
    // The generator reaches the fast path often enough for the agreement to mean something.
    expect(answered).toBeGreaterThan(300);
  });

  it('answers every ordinary valid report (so the ingest path really skips zod)', () => {
    const ordinary = fc.record({
      outcome: fc.constantFrom(...OUTCOMES),
      details: fc.string({ minLength: 1, maxLength: 300 }).filter((text) => text.trim() !== ''),
      tool_name: fc.option(fc.string({ maxLength: 50 }), { nil: undefined }),
      source: fc.option(fc.string({ maxLength: 50 }), { nil: null }),
      metadata: fc.option(
        fc.dictionary(
          // fast-check favours these names; the schema refuses them as reserved.
          fc
            .string({ minLength: 1, maxLength: 10 })
            .filter((key) => !['__proto__', 'constructor', 'prototype'].includes(key)),
          fc.oneof(fc.string({ maxLength: 20 }), fc.integer(), fc.boolean()),
          { maxKeys: 5 },
        ),
        { nil: undefined },
      ),
    });
    fc.assert(
      fc.property(ordinary, (generated) => {
        const received = asReceived(generated);
        expect(parsePlainReportInput(received)).toStrictEqual(ReportInput.parse(received));
      }),
    );
  });

  it('leaves prototype-shaped metadata to the schema', () => {
    const received = JSON.parse(
      '{"outcome":"success","details":"x","metadata":{"__proto__":"x","a":1}}',
    ) as Record<string, unknown>;
    expect(parsePlainReportInput(received)).toBeUndefined();
  });
});

describe('utf8Length', () => {
  it('counts what TextEncoder writes, lone surrogates included', () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: codeUnit, maxLength: 60 }), (text) => {
        expect(utf8Length(text)).toBe(encoder.encode(text).length);
      }),
      { numRuns: 2_000 },
    );
  });
});
