/**
 * A human-readable API reference generated from the OpenAPI document:
 * plain HTML + inline CSS, no script, nothing loaded from elsewhere.
 */
import { FAVICON_DATA_URL } from './graphiql-page.js';

type Json = Record<string, any>;

const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Inline `code` spans and **bold** from the document's Markdown-ish descriptions. */
const md = (s: unknown) =>
  esc(s ?? '')
    .replace(/`([^`]+)`/g, '<code>$1</code>')
    .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
    .replace(/\n\n/g, '</p><p>');
const pre = (v: unknown) => `<pre>${esc(JSON.stringify(v, null, 2))}</pre>`;

function resolve(doc: Json, schema: Json): Json {
  if (typeof schema?.$ref === 'string') return doc.components.schemas[String(schema.$ref.split('/').pop())];
  return schema;
}

function schemaTable(doc: Json, schema: Json): string {
  const s = resolve(doc, schema);
  if (!s?.properties) return pre(s);
  const required = new Set<string>(s.required ?? []);
  const rows = Object.entries<Json>(s.properties)
    .map(([name, p]) => {
      const r = resolve(doc, p);
      const type = r.$ref ? r.$ref.split('/').pop() : Array.isArray(r.type) ? r.type.join(' | ') : (r.type ?? (r.enum ? 'enum' : ''));
      const extra = [r.enum ? `one of ${r.enum.map((e: unknown) => `<code>${esc(e)}</code>`).join(', ')}` : '', r.const !== undefined ? `always <code>${esc(r.const)}</code>` : '']
        .filter(Boolean)
        .join('; ');
      const nested = r.properties ? schemaTable(doc, r) : r.items ? schemaTable(doc, r.items) : '';
      return `<tr><td><code>${esc(name)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}</td><td>${esc(type)}</td><td>${md(r.description ?? '')}${extra ? ` (${extra})` : ''}${nested}</td></tr>`;
    })
    .join('');
  return `<table><thead><tr><th>Field</th><th>Type</th><th>Description</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function examples(content: Json | undefined): string {
  const ex = content?.examples as Json | undefined;
  if (!ex) return '';
  return Object.entries<Json>(ex)
    .map(([name, e]) => `<details><summary>Example <code>${esc(name)}</code>: ${esc(e.summary ?? '')}</summary>${pre(e.value)}</details>`)
    .join('');
}

/** The header a security scheme puts on the request, and what its value looks like when the scheme fixes it. */
function schemeHeader(scheme: Json): { name: string; value?: string } {
  if (scheme.type === 'apiKey' && scheme.in === 'header') return { name: String(scheme.name) };
  if (scheme.type === 'http') return { name: 'Authorization', value: `${String(scheme.scheme).replace(/^./, (c) => c.toUpperCase())} …` };
  throw new Error(`openapi-page: no header rendering for security scheme type ${String(scheme.type)} (${scheme.in ? `in ${String(scheme.in)}` : ''})`);
}

/**
 * An operation's Headers table: its security requirement as it is (`op.security`, else the document's):
 * with one way to authenticate, its headers are each required; with several (SVC1 signature or a checkout
 * session's Bearer), each way is a group of its own, required only when that way is chosen. Then the
 * operation's own header parameters.
 */
function headersTable(doc: Json, op: Json): string {
  const alternatives = (op.security ?? doc.security ?? []) as Json[];
  const schemes = doc.components.securitySchemes as Json;
  const several = alternatives.length > 1;
  const rows: string[] = [];
  alternatives.forEach((requirement, i) => {
    const names = Object.keys(requirement);
    if (several) rows.push(`<tr><th colspan="2">${i === 0 ? 'Either' : 'or'} (${names.length === 1 ? 'one header' : `all ${names.length} headers`}): ${names.map((n) => esc(n)).join(' + ')}</th></tr>`);
    for (const name of names) {
      const scheme = schemes[name] as Json | undefined;
      if (!scheme) throw new Error(`openapi-page: security scheme ${name} is not declared`);
      const header = schemeHeader(scheme);
      const mark = several ? 'required this way' : 'required';
      rows.push(`<tr><td><code>${esc(header.name)}</code> <span class="req">${mark}</span>${header.value ? `<div><code>${esc(header.name)}: ${esc(header.value)}</code></div>` : ''}</td><td>${md(scheme.description)}</td></tr>`);
    }
  });
  const params = ((op.parameters ?? []) as Json[]).filter((p) => p.in === 'header');
  if (params.length > 0 && several) rows.push('<tr><th colspan="2">Optional</th></tr>');
  rows.push(...params.map((p) => `<tr><td><code>${esc(p.name)}</code>${p.required ? ' <span class="req">required</span>' : ''}</td><td>${md(p.description)}</td></tr>`));
  return rows.length === 0 ? '' : `<h3>Headers</h3>\n  <table><tbody>${rows.join('')}</tbody></table>`;
}

export function renderApiReference(doc: Json, links: { openapi: string; graphql: string }): string {
  const ops: string[] = [];
  const toc: string[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const id = esc(op.operationId);
      toc.push(`<li><a href="#${id}"><span class="m">${method.toUpperCase()}</span> ${esc(path)}</a></li>`);
      const body = op.requestBody?.content?.['application/json'];
      const responses = Object.entries<Json>(op.responses)
        .map(([status, r]) => {
          const c = r.content?.['application/json'] ?? r.content?.['application/problem+json'];
          const codes = c?.schema?.allOf?.[1]?.properties?.code?.enum as string[] | undefined;
          return `<tr><td><strong>${esc(status)}</strong></td><td>${codes ? codes.map((x) => `<code>${esc(x)}</code>`).join(' ') : ''}<div>${md(r.description)}</div>${
            c?.schema && !codes ? schemaTable(doc, c.schema) : ''
          }${examples(c)}</td></tr>`;
        })
        .join('');
      ops.push(`<section id="${id}">
  <h2><span class="m">${method.toUpperCase()}</span> <code>${esc(path)}</code></h2>
  <p><strong>${esc(op.summary)}</strong></p><p>${md(op.description)}</p>
  ${headersTable(doc, op)}
  ${body ? `<h3>Request body (<code>application/json</code>)</h3>${schemaTable(doc, body.schema)}${examples(body)}` : ''}
  <h3>Responses</h3><table class="resp"><thead><tr><th>Status</th><th>Codes, meaning, schema, examples</th></tr></thead><tbody>${responses}</tbody></table>
</section>`);
    }
  }
  // On a narrow screen (a phone, 375 px) the tables stack: each row a block, each cell a line, nested schemas
  // indented (the @media rule); whatever is still wider than the page (a long code span) scrolls in its own box.
  const scrolling = (html: string) => html.replace(/<table/g, '<div class="tw"><table').replace(/<\/table>/g, '</table></div>');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(doc.info.title)}</title>
<link rel="icon" href="${esc(FAVICON_DATA_URL)}">
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#111827;background:#fff}
main{max-width:980px;margin:0 auto;padding:24px;overflow-wrap:break-word}
.tw{overflow-x:auto;max-width:100%}
@media (max-width:600px){main{padding:12px}table,tbody,tr,td,th{display:block;width:auto}thead{display:none}tr{border-top:1px solid #e5e7eb;padding:4px 0}td,th{border:0;padding:2px 4px}td table{border-left:3px solid #e5e7eb;margin-left:4px}}
code,pre{font-family:ui-monospace,monospace;font-size:13px}
code{background:#f3f4f6;padding:1px 4px;border-radius:3px}
pre{background:#0f172a;color:#e2e8f0;padding:12px;border-radius:6px;overflow:auto}
table{border-collapse:collapse;width:100%;margin:8px 0}
td,th{border:1px solid #e5e7eb;padding:6px 8px;vertical-align:top;text-align:left}
th{background:#f9fafb}
.m{display:inline-block;background:#1d4ed8;color:#fff;border-radius:4px;padding:0 6px;font-size:13px}
.req{color:#b91c1c;font-size:12px}
section{border-top:2px solid #e5e7eb;margin-top:28px}
details{margin:4px 0}
</style></head>
<body><main>
<h1>${esc(doc.info.title)} <small>v${esc(doc.info.version)}</small></h1>
<p>${md(doc.info.description)}</p>
<p>Machine-readable: <a href="${esc(links.openapi)}">${esc(links.openapi)}</a> (OpenAPI ${esc(doc.openapi)}). GraphQL and its signing GraphiQL: <a href="${esc(links.graphql)}">${esc(links.graphql)}</a>.</p>
<ul>${toc.join('')}</ul>
${scrolling(ops.join('\n'))}
</main></body></html>`;
}
