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
      maxToolNamesPerProject: 1000,
      maxSourcesPerProject: 1000,
      signups: 'open',
      sqliteSync: 'normal',
      logLevel: 'info',
      trustProxy: false,
    });
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
