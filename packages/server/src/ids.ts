import { randomFillSync } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

// randomBytes() for every id would be ~3% of the ingest CPU (one call into the OS each): ids draw
// their random bits from a pool refilled 512 ids at a time.
const pool = Buffer.alloc(4096);
let poolOffset = pool.length;

function random8(): Buffer {
  if (poolOffset + 8 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  poolOffset += 8;
  return Buffer.from(pool.subarray(poolOffset - 8, poolOffset));
}

/**
 * UUIDv7 as 32 lowercase hex characters (no dashes): 48-bit Unix milliseconds, then a 12-bit
 * sequence that keeps ids strictly increasing within one millisecond in this process, then
 * random bits. Ids therefore sort by creation time, which the newest-first order relies on.
 */
export function newId(now: number = Date.now()): string {
  if (now <= lastMs) {
    sequence += 1;
    if (sequence > 0xfff) {
      lastMs += 1; // borrow the next millisecond rather than lose ordering
      sequence = 0;
    }
  } else {
    lastMs = now;
    sequence = 0;
  }
  const random = random8();
  const time = lastMs.toString(16).padStart(12, '0');
  const versionAndSeq = (0x7000 | sequence).toString(16);
  random[0] = (random[0]! & 0x3f) | 0x80; // RFC 9562 variant
  return time + versionAndSeq + random.toString('hex');
}
