import { ConfigError, loadConfig } from '@debrief/server';
import { describe, expect, it } from 'vitest';

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: 'localhost',
      databaseUrl: './data/debrief.db',
      publicUrl: 'http://localhost:8080',
      freeTierMonthlyReports: 1000,
      signups: 'open',
      sqliteSync: 'normal',
      logLevel: 'info',
      trustProxy: false,
      http: {
        requestTimeoutMs: 30_000,
        headersTimeoutMs: 10_000,
        keepAliveTimeoutMs: 72_000,
        maxRequestsPerConnection: 10_000,
        maxConnectionsPerAddress: 64,
      },
    });
  });

  it('reads the HTTP limits, 0 meaning none, and keeps the header timeout within the request timeout', () => {
    expect(
      loadConfig({
        REQUEST_TIMEOUT_MS: '0',
        HEADERS_TIMEOUT_MS: '5000',
        KEEP_ALIVE_TIMEOUT_MS: '5000',
        MAX_REQUESTS_PER_CONNECTION: '0',
        MAX_CONNECTIONS_PER_ADDRESS: '0',
      }).http,
    ).toEqual({
      requestTimeoutMs: 0,
      headersTimeoutMs: 5000,
      keepAliveTimeoutMs: 5000,
      maxRequestsPerConnection: 0,
      maxConnectionsPerAddress: 0,
    });
    expect(() => loadConfig({ MAX_CONNECTIONS_PER_ADDRESS: 'many' })).toThrow(
      /MAX_CONNECTIONS_PER_ADDRESS must be a whole number of connections/,
    );
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '-1' })).toThrow(/REQUEST_TIMEOUT_MS/);
    expect(() => loadConfig({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '10000' })).toThrow(
      /HEADERS_TIMEOUT_MS must not exceed REQUEST_TIMEOUT_MS/,
    );
  });

  it('reads every variable, and treats empty ones as unset', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://u@db/debrief',
      PUBLIC_URL: 'https://debrief.example.com/',
      FREE_TIER_MONTHLY_REPORTS: 'unlimited',
      SIGNUPS: 'closed',
      SQLITE_SYNC: 'full',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: '2',
      UNRELATED: 'x',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      publicUrl: 'https://debrief.example.com',
      freeTierMonthlyReports: null,
      signups: 'closed',
      sqliteSync: 'full',
      trustProxy: 2,
    });
    expect(loadConfig({ PORT: '', HOST: '0.0.0.0' }).publicUrl).toBe('http://localhost:8080');
  });

  it('names each wrong variable', () => {
    expect(() =>
      loadConfig({
        PORT: '70000',
        FREE_TIER_MONTHLY_REPORTS: '-1',
        PUBLIC_URL: 'debrief.example.com',
        LOG_LEVEL: 'loud',
        SQLITE_SYNC: 'off',
      }),
    ).toThrow(ConfigError);
    try {
      loadConfig({
        PORT: '70000',
        FREE_TIER_MONTHLY_REPORTS: '-1',
        PUBLIC_URL: 'ftp://x',
        LOG_LEVEL: 'loud',
        SQLITE_SYNC: 'off',
      });
    } catch (error) {
      const message = (error as Error).message;
      for (const name of [
        'PORT',
        'FREE_TIER_MONTHLY_REPORTS',
        'PUBLIC_URL',
        'LOG_LEVEL',
        'SQLITE_SYNC',
      ])
        expect(message).toContain(name);
    }
  });
});
