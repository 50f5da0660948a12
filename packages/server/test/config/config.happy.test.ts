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
      ingestLimits: {
        keyRate: 50,
        keyBurst: 200,
        addressRate: 10,
        addressBurst: 60,
        addressDailyShare: 10,
      },
      signups: 'invite',
      signupsPerAddress: 5,
      smtp: null,
      maxToolNamesPerProject: 1000,
      maxSourcesPerProject: 1000,
      sqliteSync: 'normal',
      sqliteReaders: 2,
      postgresReadConnections: 2,
      readTimeoutMs: 10_000,
      issueGrouping: true,
      notifications: {
        retryScheduleMs: [
          5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000,
          86_400_000,
        ],
        allowPrivateDestinations: false,
      },
      issueAnswerWaitMs: 200,
      logLevel: 'info',
      trustProxy: false,
      http: {
        requestTimeoutMs: 30_000,
        headersTimeoutMs: 10_000,
        keepAliveTimeoutMs: 72_000,
        maxRequestsPerConnection: 10_000,
        maxConnectionsPerAddress: 128,
      },
      streamsPerAccount: 20,
      streamsPerInstance: 1000,
      streamBufferBytes: 1_048_576,
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

  it('reads the caps on distinct tool names and sources, and refuses 0', () => {
    const config = loadConfig({ MAX_TOOL_NAMES_PER_PROJECT: '5', MAX_SOURCES_PER_PROJECT: '7' });
    expect(config.maxToolNamesPerProject).toBe(5);
    expect(config.maxSourcesPerProject).toBe(7);
    expect(() => loadConfig({ MAX_TOOL_NAMES_PER_PROJECT: '0' })).toThrow(
      /MAX_TOOL_NAMES_PER_PROJECT must be a whole number, 1 or more/,
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
      SIGNUPS_PER_ADDRESS: '20',
      SQLITE_SYNC: 'full',
      SQLITE_READERS: '0',
      POSTGRES_READ_CONNECTIONS: '4',
      READ_TIMEOUT_MS: '2500',
      ISSUE_GROUPING: 'off',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: '2',
      STREAMS_PER_ACCOUNT: '5',
      STREAMS_PER_INSTANCE: '300',
      STREAM_BUFFER_BYTES: '262144',
      UNRELATED: 'x',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      publicUrl: 'https://debrief.example.com',
      freeTierMonthlyReports: null,
      signups: 'closed',
      signupsPerAddress: 20,
      sqliteSync: 'full',
      sqliteReaders: 0,
      postgresReadConnections: 4,
      readTimeoutMs: 2500,
      issueGrouping: false,
      trustProxy: 2,
      streamsPerAccount: 5,
      streamsPerInstance: 300,
      streamBufferBytes: 262_144,
    });
    expect(loadConfig({ PORT: '', HOST: '0.0.0.0' }).publicUrl).toBe('http://localhost:8080');
  });

  it('reads the ingest limits; "unlimited" turns a bucket off', () => {
    expect(
      loadConfig({
        INGEST_RATE_PER_KEY: '100',
        INGEST_BURST_PER_KEY: 'unlimited',
        INGEST_RATE_PER_ADDRESS: '5',
        INGEST_BURST_PER_ADDRESS: '20',
        ADDRESS_DAILY_SHARE: '100',
      }).ingestLimits,
    ).toEqual({
      keyRate: 100,
      keyBurst: null,
      addressRate: 5,
      addressBurst: 20,
      addressDailyShare: 100,
    });
    for (const [name, value] of [
      ['INGEST_RATE_PER_KEY', '0'],
      ['INGEST_BURST_PER_ADDRESS', '2.5'],
      ['ADDRESS_DAILY_SHARE', '0'],
      ['ADDRESS_DAILY_SHARE', '101'],
    ] as const) {
      expect(() => loadConfig({ [name]: value })).toThrow(name);
    }
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
        SIGNUPS_PER_ADDRESS: '0',
        STREAMS_PER_ACCOUNT: '0',
        STREAM_BUFFER_BYTES: '1024',
        SQLITE_READERS: '17',
        POSTGRES_READ_CONNECTIONS: '0',
        READ_TIMEOUT_MS: '-1',
      });
    } catch (error) {
      const message = (error as Error).message;
      for (const name of [
        'PORT',
        'FREE_TIER_MONTHLY_REPORTS',
        'PUBLIC_URL',
        'LOG_LEVEL',
        'SQLITE_SYNC',
        'SIGNUPS_PER_ADDRESS',
        'STREAMS_PER_ACCOUNT',
        'STREAM_BUFFER_BYTES',
        'SQLITE_READERS',
        'POSTGRES_READ_CONNECTIONS',
        'READ_TIMEOUT_MS',
      ])
        expect(message).toContain(name);
    }
  });
});
