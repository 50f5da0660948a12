import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

// What an agent does with /skill.md: find the command, fill in its own words, run it.
const run = promisify(execFile);
const CURL = ['/usr/bin/curl', '/bin/curl', '/usr/local/bin/curl'].find((p) => existsSync(p));

/** The fenced bash block under the "Feedback about Debrief itself" heading, as an agent sees it. */
export function selfFeedbackCurl(markdown: string): string {
  const section = markdown.split(/^## Feedback about Debrief itself$/m)[1];
  if (!section) throw new Error('no "Feedback about Debrief itself" section');
  const block = /```bash\n([\s\S]*?)\n```/.exec(section);
  if (!block) throw new Error('no bash block in the self-feedback section');
  return block[1]!;
}

/** What an agent does: replace each `<…>` placeholder in the JSON with its own words. */
export function fillPlaceholders(command: string, values: Record<string, string>): string {
  return command.replace(/"([a-z_]+)": "<[^"]*>"/g, (whole, field: string) =>
    field in values ? `"${field}": ${JSON.stringify(values[field])}` : whole,
  );
}

/** Runs the command with the real curl through sh, or, without curl, sends the same request. */
export async function runLikeAnAgent(command: string): Promise<unknown> {
  if (CURL) {
    const { stdout } = await run('sh', ['-c', command], { timeout: 15_000 });
    return JSON.parse(stdout);
  }
  const url = /curl .*?'([^']+)'/.exec(command)![1]!;
  const body = /<<'JSON'\n([\s\S]*?)\nJSON$/.exec(command)![1]!;
  return (await fetch(url, { method: 'POST', body })).json();
}
