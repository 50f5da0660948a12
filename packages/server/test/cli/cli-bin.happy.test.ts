import { execFile } from 'node:child_process';
import {
  accessSync,
  constants,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { distBuilt, REPO_ROOT } from '../../../../test/harness/cli-process.js';

const SERVER = join(REPO_ROOT, 'packages/server');
const BIN = join(SERVER, 'bin/debrief.js');

function run(
  file: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [file, ...args], { timeout: 30_000 }, (error, stdout, stderr) =>
      done({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

// npm links a workspace's bin when it installs, before `prepare` builds dist/: a bin inside
// dist/ gets no link on a fresh clone, and `npx debrief` fails. `.ci/run` checks the
// link itself right after `npm ci`; these tests keep the bin file honest.
describe('the debrief bin', () => {
  const temp = mkdtempSync(join(tmpdir(), 'debrief-bin-'));
  afterAll(() => rmSync(temp, { recursive: true, force: true }));

  it('is a committed, executable file outside dist/', () => {
    const pkg = JSON.parse(readFileSync(join(SERVER, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ debrief: './bin/debrief.js' });
    expect(pkg.files).toContain('bin');
    accessSync(BIN, constants.X_OK);
    expect(readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });

  it.skipIf(!distBuilt())('runs the built CLI', async () => {
    const res = await run(BIN, ['--help']);
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Usage: debrief <command>');
  });

  it('says in one line to run `npm run build` when the build is missing', async () => {
    // A copy of the bin in a package folder without dist/: what a fresh clone has before build.
    mkdirSync(join(temp, 'bin'));
    const copy = join(temp, 'bin/debrief.js');
    copyFileSync(BIN, copy);
    const res = await run(copy, ['bootstrap', '--help']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toContain('npm run build');
  });
});
