import { allErrorGuides } from './error-guide.js';
import type { JsonSchema } from './openapi-schemas.js';

// biome-ignore lint/suspicious/noExplicitAny: walks the OpenAPI document, plain JSON of many shapes
type Dict = Record<string, any>;

export function escapeHtml(value: unknown): string {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Escaped text where `backticks` become <code>: the only markup the descriptions use. */
function prose(text: unknown): string {
  return escapeHtml(text ?? '').replace(/`([^`]+)`/g, '<code>$1</code>');
}

const refName = (schema: Dict) =>
  typeof schema.$ref === 'string' ? schema.$ref.split('/').pop()! : null;

function resolve(doc: Dict, schema: Dict | undefined): Dict {
  const name = schema ? refName(schema) : null;
  return name ? (doc.components.schemas[name] as Dict) : (schema ?? {});
}

/** A short type label: `string`, `"a" | "b"`, `integer`, `Report[]`, `string | null`. */
function typeLabel(schema: Dict): string {
  const name = refName(schema);
  if (name) return name;
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum))
    return schema.enum.map((v: unknown) => JSON.stringify(v)).join(' | ');
  if (Array.isArray(schema.anyOf)) return schema.anyOf.map(typeLabel).join(' | ');
  if (Array.isArray(schema.allOf)) return schema.allOf.map(typeLabel).join(' & ');
  if (schema.type === 'array') return `${typeLabel(schema.items ?? {})}[]`;
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  if (schema.type === 'object' && schema.additionalProperties && !schema.properties)
    return `object of ${typeLabel(schema.additionalProperties)}`;
  return String(schema.type ?? 'any');
}

function constraints(schema: Dict): string {
  const parts: string[] = [];
  const s = Array.isArray(schema.anyOf) ? (schema.anyOf[0] as Dict) : schema;
  if (s.minLength !== undefined) parts.push(`min length ${s.minLength}`);
  if (s.maxLength !== undefined) parts.push(`max length ${s.maxLength}`);
  if (s.minimum !== undefined) parts.push(`≥ ${s.minimum}`);
  if (s.pattern !== undefined) parts.push(`pattern ${s.pattern}`);
  return parts.length ? ` <span class="c">(${escapeHtml(parts.join(', '))})</span>` : '';
}

function fieldsTable(doc: Dict, schema: Dict | undefined): string {
  const resolved = resolve(doc, schema);
  const object = resolved.type === 'array' ? resolve(doc, resolved.items) : resolved;
  const properties = object.properties as Dict | undefined;
  if (!properties) return `<p>Type: <code>${escapeHtml(typeLabel(schema ?? {}))}</code></p>`;
  const required = new Set<string>(object.required ?? []);
  const rows = Object.entries(properties)
    .map(
      ([name, property]: [string, Dict]) =>
        `<tr><td><code>${escapeHtml(name)}</code></td><td><code>${escapeHtml(typeLabel(property))}</code>${constraints(property)}</td><td>${required.has(name) ? 'yes' : 'no'}</td><td>${prose(property.description)}</td></tr>`,
    )
    .join('\n');
  const intro = resolved.type === 'array' ? '<p>An array of objects with:</p>' : '';
  return `${intro}<table><thead><tr><th>Field</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function example(value: unknown, label?: string): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return `${label ? `<p class="ex">${prose(label)}</p>` : ''}<pre>${escapeHtml(text)}</pre>`;
}

function mediaExamples(media: Dict): string {
  if (media.example !== undefined) return example(media.example, 'Example');
  return Object.entries((media.examples ?? {}) as Dict)
    .map(([name, ex]: [string, Dict]) => example(ex.value, `Example: ${ex.summary ?? name}`))
    .join('\n');
}

function securityText(operation: Dict): string {
  const security = (operation.security ?? []) as Dict[];
  if (security.length === 0)
    return '<p><strong>Auth:</strong> none (a submit carries its ingest key in the body).</p>';
  // A scheme with scopes (an API key with `triage`) says which it needs.
  const labels = security.flatMap((s) =>
    Object.entries(s).map(([n, scopes]) => {
      const needs =
        Array.isArray(scopes) && scopes.length > 0
          ? ` with scope ${scopes.map((x) => `<code>${escapeHtml(x)}</code>`).join(', ')}`
          : '';
      return `<a href="#auth-${escapeHtml(n)}">${escapeHtml(n)}</a>${needs}`;
    }),
  );
  return `<p><strong>Auth:</strong> ${labels.join(' or ')}</p>`;
}

function operationHtml(doc: Dict, path: string, method: string, op: Dict): string {
  const params = (op.parameters ?? []) as Dict[];
  const paramRows = params
    .map(
      (p) =>
        `<tr><td><code>${escapeHtml(p.name)}</code></td><td>${escapeHtml(p.in)}</td><td><code>${escapeHtml(typeLabel(p.schema ?? {}))}</code>${constraints(p.schema ?? {})}</td><td>${p.required ? 'yes' : 'no'}</td><td>${prose(p.description)}</td></tr>`,
    )
    .join('\n');
  // Every media type of a body has the one schema (the server reads JSON whatever the type):
  // shown once, under the types.
  const body = Object.entries((op.requestBody?.content ?? {}) as Dict);
  const [, media] = body[0] ?? [];
  const bodyHtml = media
    ? `<h4>Request body ${body.map(([type]) => `<code>${escapeHtml(type)}</code>`).join(', ')}</h4>${op.requestBody.description ? `<p>${prose(op.requestBody.description)}</p>` : ''}${fieldsTable(doc, media.schema)}${mediaExamples(media)}`
    : '';
  const responses = Object.entries((op.responses ?? {}) as Dict)
    .map(([status, response]: [string, Dict]) => {
      const content = Object.entries((response.content ?? {}) as Dict)
        .map(([type, media]: [string, Dict]) => {
          const codes = media.schema?.allOf?.[1]?.properties?.code?.enum as string[] | undefined;
          const schemaHtml = codes
            ? `<p>Problem details; <code>code</code> is one of ${codes.map((c) => `<a href="#error-${escapeHtml(c)}"><code>${escapeHtml(c)}</code></a>`).join(', ')}.</p>`
            : media.schema?.type === 'string'
              ? ''
              : fieldsTable(doc, media.schema);
          return `<p>Content-Type: <code>${escapeHtml(type)}</code></p>${schemaHtml}${mediaExamples(media)}`;
        })
        .join('\n');
      const headers = Object.entries((response.headers ?? {}) as Dict)
        .map(
          ([name, h]: [string, Dict]) =>
            `<p>Header <code>${escapeHtml(name)}</code>: ${prose(h.description)}</p>`,
        )
        .join('\n');
      return `<h4>${escapeHtml(status)}</h4><p>${prose(response.description)}</p>${headers}${content}`;
    })
    .join('\n');
  return `<section class="op" id="op-${escapeHtml(op.operationId)}">
<h3><span class="m">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code></h3>
<p><strong>${prose(op.summary)}</strong></p>${op.description ? `<p>${prose(op.description)}</p>` : ''}
${securityText(op)}
${params.length ? `<h4>Parameters</h4><table><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Required</th><th>Description</th></tr></thead><tbody>${paramRows}</tbody></table>` : ''}
${bodyHtml}
<h4>Responses</h4>
${responses}
</section>`;
}

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:960px;margin:0 auto;padding:1rem 1.5rem;color:#1b1b1f}
code,pre{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.9em}pre{background:#f4f4f6;padding:.75rem;overflow-x:auto;border-radius:6px}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{border:1px solid #ddd;padding:.3rem .5rem;text-align:left;vertical-align:top}
.m{background:#1b1b1f;color:#fff;border-radius:4px;padding:0 .4rem}.op{border-top:2px solid #eee;margin-top:2rem}.c,.ex{color:#555}
section:target{background:#fffbe6}a{color:#0b57d0}`;

/** The API reference at /docs: one self-contained page (no scripts, fonts or CDN) from the document. */
export function renderDocsPage(document: JsonSchema): string {
  const doc = document as Dict;
  const operations: string[] = [];
  const nav: string[] = [];
  for (const [path, item] of Object.entries(doc.paths as Dict)) {
    for (const [method, op] of Object.entries(item as Dict)) {
      operations.push(operationHtml(doc, path, method, op as Dict));
      nav.push(
        `<li><a href="#op-${escapeHtml((op as Dict).operationId)}">${escapeHtml(method.toUpperCase())} ${escapeHtml(path)}</a> ${prose((op as Dict).summary)}</li>`,
      );
    }
  }
  const auth = Object.entries(doc.components.securitySchemes as Dict)
    .map(
      ([name, s]: [string, Dict]) =>
        `<section id="auth-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3><p>${prose(s.description)}</p></section>`,
    )
    .join('\n');
  const schemas = Object.entries(doc.components.schemas as Dict)
    .map(
      ([name, schema]: [string, Dict]) =>
        `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${fieldsTable(doc, schema)}</section>`,
    )
    .join('\n');
  const errors = allErrorGuides()
    .map(
      (e) =>
        `<section id="error-${escapeHtml(e.code)}"><h3><code>${escapeHtml(e.code)}</code> · ${escapeHtml(e.status)}</h3><p><strong>${escapeHtml(e.title)}.</strong> ${prose(e.fix)}</p></section>`,
    )
    .join('\n');
  const base = escapeHtml(doc.servers?.[0]?.url ?? '');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(doc.info.title)} reference</title><style>${STYLE}</style></head>
<body>
<h1>${escapeHtml(doc.info.title)} <small>${escapeHtml(doc.info.version)}</small></h1>
<p>${prose(doc.info.description)}</p>
<p>Base URL: <code>${base}</code> · <a href="${base}/skill.md">skill.md</a> · <a href="${base}/openapi.json">openapi.json</a> · <a href="${base}/llms.txt">llms.txt</a></p>
<h2 id="endpoints">Endpoints</h2><ul>${nav.join('\n')}</ul>
<h2 id="authentication">Authentication</h2>${auth}
${operations.join('\n')}
<h2 id="schemas">Schemas</h2>${schemas}
<h2 id="errors">Errors</h2>
<p>Every error is RFC 9457 problem details with <code>Content-Type: application/problem+json</code>: <code>{"ok": false, "type", "title", "status", "detail", "code", "errors"?}</code>. Its <code>type</code> links to the entry below.</p>
${errors}
</body></html>
`;
}
