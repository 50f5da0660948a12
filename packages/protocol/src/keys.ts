import { crc32 } from './checksum.js';

/**
 * Key formats (DESIGN §1). Ingest keys are public by design and go in report bodies; API keys
 * are secrets that read data and go in `Authorization: Bearer`. Hex never contains `sk_`, so
 * the prefixes cannot be confused.
 */
export const INGEST_KEY_PREFIX = 'wk_';
export const API_KEY_PREFIX = 'wk_sk_';
export const INGEST_KEY_PATTERN = /^wk_[0-9a-f]{32}$/;
export const API_KEY_PATTERN = /^wk_sk_[0-9A-Za-z]{32,}$/;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const API_KEY_RANDOM_LENGTH = 32;
const API_KEY_CHECKSUM_LENGTH = 6;
/** How much of an API key is stored in clear and shown in lists, e.g. `wk_sk_3fZq9a`. */
export const API_KEY_VISIBLE_LENGTH = API_KEY_PREFIX.length + 6;

function randomBytes(length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  globalThis.crypto.getRandomValues(bytes);
  return bytes;
}

export function randomHex(byteLength: number): string {
  return Array.from(randomBytes(byteLength), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** Uniform base62 by rejection sampling: 248 is the largest multiple of 62 below 256. */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function base62Checksum(text: string): string {
  let value = crc32(text);
  let out = '';
  for (let i = 0; i < API_KEY_CHECKSUM_LENGTH; i++) {
    out = BASE62[value % 62] + out;
    value = Math.floor(value / 62);
  }
  return out;
}

export function generateIngestKey(): string {
  return INGEST_KEY_PREFIX + randomHex(16);
}

/** `wk_sk_` + 32 random base62 characters + a 6-character CRC-32 checksum tail. */
export function generateApiKey(): string {
  const body = API_KEY_PREFIX + randomBase62(API_KEY_RANDOM_LENGTH);
  return body + base62Checksum(body);
}

export function isIngestKeyFormat(value: string): boolean {
  return INGEST_KEY_PATTERN.test(value);
}

export function isSecretKeyLike(value: string): boolean {
  return value.startsWith(API_KEY_PREFIX);
}

/**
 * True when the key has the API key shape and, for keys of the length we issue, a matching
 * checksum tail. A false answer means the key was mistyped or is not ours.
 */
export function isApiKeyWellFormed(value: string): boolean {
  if (!API_KEY_PATTERN.test(value)) return false;
  const expectedLength = API_KEY_PREFIX.length + API_KEY_RANDOM_LENGTH + API_KEY_CHECKSUM_LENGTH;
  if (value.length !== expectedLength) return true;
  const body = value.slice(0, -API_KEY_CHECKSUM_LENGTH);
  return base62Checksum(body) === value.slice(-API_KEY_CHECKSUM_LENGTH);
}

export function apiKeyVisiblePrefix(key: string): string {
  return key.slice(0, API_KEY_VISIBLE_LENGTH);
}
