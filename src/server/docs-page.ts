/**
 * `GET /docs`: /openapi.json as one self-contained HTML page — each operation with its summary, description, request
 * body schema and responses, then the component schemas. Rendered on the server from the same document object, with
 * no script and nothing fetched from a CDN (the page works offline and under a strict Content-Security-Policy). Every
 * text from the document is HTML-escaped.
 */
import type { OpenApiDocument } from './openapi.ts';

/** The Content-Security-Policy /docs is served with: inline styles, nothing else. */
export const DOCS_CSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
}

const json = (value: unknown): string => `<pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre>`;

interface Described {
  description?: string;
  content?: Record<string, { schema?: unknown }>;
}

function media(body: Described): string {
  const parts = Object.entries(body.content ?? {}).map(([type, m]) => `<div><code>${escapeHtml(type)}</code>${m.schema === undefined ? '' : json(m.schema)}</div>`);
  return `${escapeHtml(body.description ?? '')}${parts.join('')}`;
}

function operationHtml(path: string, method: string, op: Record<string, unknown>): string {
  const request = op.requestBody as (Described & { required?: boolean }) | undefined;
  const responses = Object.entries((op.responses ?? {}) as Record<string, Described>)
    .map(([code, body]) => `<tr><td>${escapeHtml(code)}</td><td>${media(body)}</td></tr>`)
    .join('');
  return `<section class="op" id="${escapeHtml(`${method}-${path}`)}">
<h3><span class="method">${escapeHtml(method.toUpperCase())}</span> <code>${escapeHtml(path)}</code> — ${escapeHtml(typeof op.summary === 'string' ? op.summary : '')}</h3>
${typeof op.description === 'string' ? `<p>${escapeHtml(op.description)}</p>` : ''}
${request ? `<h4>Request body${request.required ? '' : ' (optional)'}</h4>${media(request)}` : ''}
<h4>Responses</h4><table><tbody>${responses}</tbody></table>
</section>`;
}

export function renderDocsPage(doc: OpenApiDocument): string {
  const ops: string[] = [];
  const index: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      index.push(`<li><a href="#${escapeHtml(`${method}-${path}`)}"><span class="method">${escapeHtml(method.toUpperCase())}</span> ${escapeHtml(path)}</a></li>`);
      ops.push(operationHtml(path, method, op as Record<string, unknown>));
    }
  }
  const schemas = Object.entries(doc.components.schemas)
    .map(([name, schema]) => `<section id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${json(schema)}</section>`)
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(doc.info.title)} — API</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem 1.5rem;color:#1b1b1f;background:#fff}
@media (prefers-color-scheme:dark){body{color:#e6e6ea;background:#16161a}pre,table td{border-color:#333}}
pre{overflow:auto;padding:.5rem;border:1px solid #ddd;border-radius:4px;font-size:13px}
table{border-collapse:collapse;width:100%}td{vertical-align:top;border-top:1px solid #ddd;padding:.3rem .5rem}
.method{font:bold 13px monospace;padding:0 .3rem;border:1px solid currentColor;border-radius:3px}.op{margin:2rem 0}
</style></head><body>
<h1>${escapeHtml(doc.info.title)}</h1>
<p>OpenAPI ${escapeHtml(doc.openapi)} · API version ${escapeHtml(doc.info.version)} · environment version ${escapeHtml(doc.info['x-sqlenv-env-version'])} · <a href="openapi.json">openapi.json</a></p>
<p>${escapeHtml(doc.info.description)}</p>
<h2>Operations</h2><ul>${index.join('')}</ul>
${ops.join('\n')}
<h2>Schemas</h2>${schemas}
</body></html>
`;
}
