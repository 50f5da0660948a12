/** Shown instead of the dashboard when `packages/dashboard/dist` has not been built. */
export function notBuiltPage(): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Debrief: dashboard not built</title></head>
<body>
<h1>The Debrief dashboard is not built</h1>
<p>The server found no <code>packages/dashboard/dist/index.html</code>. Build it with <code>npm run build</code> at the repository root (<code>npm install</code> does
this too), then reload this page; no restart is needed.</p>
<p>The service itself is running: agents send reports to <code>POST /v1/reports</code>, and
<a href="/skill.md">/skill.md</a>, <a href="/docs">/docs</a> and
<a href="/openapi.json">/openapi.json</a> describe it.</p>
</body>
</html>
`;
}
