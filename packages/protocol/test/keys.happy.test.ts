import { describe, expect, it } from 'vitest';
import {
  API_KEY_PATTERN,
  apiKeyVisiblePrefix,
  generateApiKey,
  generateIngestKey,
  INGEST_KEY_PATTERN,
  isApiKeyWellFormed,
  isIngestKeyFormat,
  isSecretKeyLike,
} from '../src/index.js';

describe('key formats', () => {
  it('ingest keys are wk_ + 32 lowercase hex and never look like secret keys', () => {
    for (let i = 0; i < 200; i++) {
      const key = generateIngestKey();
      expect(key).toMatch(INGEST_KEY_PATTERN);
      expect(isIngestKeyFormat(key)).toBe(true);
      expect(isSecretKeyLike(key)).toBe(false);
    }
  });

  it('API keys are wk_sk_ + base62 with a checksum tail that catches typos', () => {
    const keys = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      keys.add(key);
      expect(key).toMatch(API_KEY_PATTERN);
      expect(key.length).toBe(44);
      expect(isApiKeyWellFormed(key)).toBe(true);
      expect(isIngestKeyFormat(key)).toBe(false);
      const typo = key.slice(0, 10) + (key[10] === 'a' ? 'b' : 'a') + key.slice(11);
      expect(isApiKeyWellFormed(typo)).toBe(false);
      expect(isApiKeyWellFormed(key.slice(0, -1))).toBe(true); // other lengths: format only
    }
    expect(keys.size).toBe(200);
  });

  it('shows only a short prefix of an API key', () => {
    const key = generateApiKey();
    expect(apiKeyVisiblePrefix(key)).toBe(key.slice(0, 12));
  });
});
