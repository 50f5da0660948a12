import { describe, expect, it } from 'vitest';
import { clientAddress } from '../../src/limits/client-address.js';
import { secondsToToken, TokenBuckets } from '../../src/limits/token-buckets.js';

describe('the address an ingest limit counts against', () => {
  it('is an IPv4 address as it is, and an IPv4-mapped IPv6 address as its IPv4', () => {
    expect(clientAddress('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddress('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('is the /64 of an IPv6 address, however it is spelled', () => {
    const net = '2001:db8:1:2::/64';
    expect(clientAddress('2001:db8:1:2::1')).toBe(net);
    expect(clientAddress('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(net);
    expect(clientAddress('2001:DB8:1:2:0:0:0:9')).toBe(net);
    expect(clientAddress('2001:db8:1:3::1')).not.toBe(net);
    expect(clientAddress('::1')).toBe('::/64');
  });
});

describe('token buckets', () => {
  it('let a burst through, then one token per 1/rate seconds, and forget full buckets', () => {
    const buckets = new TokenBuckets();
    const policy = { rate: 2, burst: 3 };
    let passed = 0;
    for (let i = 0; i < 5; i++) {
      const left = buckets.available('k', policy, 0);
      if (left >= 1) {
        buckets.take('k', policy, 0, left);
        passed++;
      }
    }
    expect(passed).toBe(3);
    expect(buckets.available('k', policy, 0)).toBe(0);
    expect(secondsToToken(0, policy)).toBe(1);
    expect(buckets.available('k', policy, 500)).toBe(1);
    expect(buckets.available('k', policy, 10_000)).toBe(3);
    buckets.sweep(1_000);
    expect(buckets.size).toBe(1);
    buckets.sweep(1_500);
    expect(buckets.size).toBe(0);
  });
});
