import { describe, expect, it } from 'vitest';
import { FailureCounter } from '../src/accounts/signin-throttle.js';

describe('FailureCounter (sign-in slow-down)', () => {
  const options = { freeFailures: 5, windowMs: 15 * 60_000, baseDelayMs: 30_000 };

  it('lets 5 failures through, then doubles the wait with each further failure', () => {
    const counter = new FailureCounter(options);
    const t0 = 1_000_000;
    for (let i = 0; i < 5; i++) {
      expect(counter.waitMs('k', t0)).toBe(0);
      counter.fail('k', t0);
    }
    expect(counter.waitMs('k', t0)).toBe(30_000);
    expect(counter.waitMs('k', t0 + 30_000)).toBe(0);
    counter.fail('k', t0 + 30_000);
    expect(counter.waitMs('k', t0 + 30_000)).toBe(60_000);
    counter.fail('k', t0 + 90_000);
    expect(counter.waitMs('k', t0 + 90_000)).toBe(120_000);
  });

  it('caps the wait at the window and forgets a key after a quiet window', () => {
    const counter = new FailureCounter(options);
    for (let i = 0; i < 20; i++) counter.fail('k', 0);
    expect(counter.waitMs('k', 0)).toBe(options.windowMs);
    expect(counter.waitMs('k', options.windowMs + 1)).toBe(0);
    counter.fail('k', options.windowMs + 1);
    expect(counter.waitMs('k', options.windowMs + 1)).toBe(0);
  });

  it('keeps keys apart and resets a key on success', () => {
    const counter = new FailureCounter(options);
    for (let i = 0; i < 6; i++) counter.fail('a', 0);
    expect(counter.waitMs('a', 0)).toBeGreaterThan(0);
    expect(counter.waitMs('b', 0)).toBe(0);
    counter.reset('a');
    expect(counter.waitMs('a', 0)).toBe(0);
  });
});
