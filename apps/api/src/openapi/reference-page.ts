import { createHash } from 'node:crypto';
import type { OpenApiDocument, OpenApiOperation } from './openapi-document';

const escape = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const json = (value: unknown): string => `<pre>${escape(JSON.stringify(value, null, 2))}</pre>`;
/** An example: a text body (a CSV or JSONL stream) as it reads, anything else as JSON. */
const sample = (value: unknown): string => (typeof value === 'string' ? `<pre>${escape(value)}</pre>` : json(value));

/** Markdown's inline code, the only markup the summaries and descriptions use. */
const prose = (text: string): string => escape(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const STYLE = `
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1c1c1c;display:flex}
nav{position:sticky;top:0;height:100vh;overflow:auto;width:22rem;flex:none;padding:1rem;background:#f4f4f5;box-sizing:border-box;font-size:13px}
nav a{display:block;color:inherit;text-decoration:none;padding:.1rem 0;white-space:nowrap}nav .m{min-width:3.5rem}nav h3{margin:1rem 0 .25rem}
main{padding:1rem 2rem;max-width:60rem;min-width:0}
section.op{border-top:1px solid #ddd;padding:.75rem 0}
.m{display:inline-block;min-width:4rem;font-weight:600;font-family:ui-monospace,monospace}
.GET{color:#0b6e4f}.POST{color:#1d4ed8}.DELETE{color:#b91c1c}.PUT,.PATCH{color:#a16207}
code,pre{font-family:ui-monospace,monospace;font-size:12.5px}
pre{background:#f7f7f8;padding:.5rem;overflow:auto;max-height:24rem}
table{border-collapse:collapse}td,th{text-align:left;padding:.15rem .6rem .15rem 0;vertical-align:top}
details{margin:.25rem 0}summary{cursor:pointer}
`;

/** The page's Content-Security-Policy: nothing but its own style block, by hash; no script at all. */
export const REFERENCE_PAGE_CSP = [
  "default-src 'none'",
  `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

function renderOperation(method: string, path: string, op: OpenApiOperation): string {
  const auth = op.security.length ? op.security.map((s) => Object.keys(s).join(' + ')).join(' or ') : 'none';
  const params = op.parameters.length
    ? `<h4>Parameters</h4><table><tr><th>name</th><th>in</th><th>schema</th><th></th></tr>${op.parameters
        .map(
          (p) =>
            `<tr><td><code>${escape(p.name)}</code>${p.required ? ' *' : ''}</td><td>${p.in}</td><td><code>${escape(JSON.stringify(p.schema))}</code></td><td>${prose(p.description ?? '')}</td></tr>`,
        )
        .join('')}</table>`
    : '';
  const body = op.requestBody
    ? Object.entries(op.requestBody.content)
        .map(
          ([type, media]) =>
            `<h4>Request body <code>${escape(type)}</code></h4><details><summary>schema</summary>${json(media.schema)}</details>${
              media.example === undefined ? '' : `<details open><summary>example</summary>${json(media.example)}</details>`
            }`,
        )
        .join('')
    : '';
  const responses = Object.entries(op.responses)
    .map(([status, r]) => {
      const headers = Object.entries(r.headers ?? {})
        .map(([name, h]) => `<br>Header <code>${escape(name)}</code>: ${prose(h.description)}`)
        .join('');
      const media = Object.entries(r.content ?? {})
        .map(
          ([type, m]) =>
            `<details><summary><code>${escape(type)}</code></summary>${json(m.schema)}</details>${
              m.example === undefined ? '' : `<details><summary>example</summary>${sample(m.example)}</details>`
            }`,
        )
        .join('');
      return `<tr><td><b>${status}</b></td><td>${prose(r.description)}${headers}${media}</td></tr>`;
    })
    .join('');
  return `<section class="op" id="${escape(op.operationId)}">
<div><span class="m ${method.toUpperCase()}">${method.toUpperCase()}</span> <code>${escape(path)}</code></div>
<p>${prose(op.summary)}${op.description ? `<br>${prose(op.description)}` : ''}</p>
<p>Authentication: <code>${escape(auth)}</code></p>${params}${body}<h4>Responses</h4><table>${responses}</table></section>`;
}

/** The API reference as one self-contained HTML page (no script, no font, nothing from another host). */
export function renderReferencePage(doc: OpenApiDocument): string {
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op })),
  );
  const byTag = doc.tags.map(({ name }) => ({ name, ops: operations.filter(({ op }) => op.tags.includes(name)) }));
  const nav = byTag
    .map(
      ({ name, ops }) =>
        `<h3><a href="#tag-${escape(name)}">${escape(name)}</a></h3>${ops
          .map(
            ({ path, method, op }) =>
              `<a href="#${escape(op.operationId)}"><span class="m ${method.toUpperCase()}">${method.toUpperCase()}</span> ${escape(path)}</a>`,
          )
          .join('')}`,
    )
    .join('');
  const schemes = Object.entries(doc.components.securitySchemes)
    .map(
      ([name, s]) => `<tr><td><code>${escape(name)}</code></td><td>${prose((s as { description?: string }).description ?? '')}</td></tr>`,
    )
    .join('');
  const sections = byTag
    .map(
      ({ name, ops }) =>
        `<h2 id="tag-${escape(name)}">${escape(name)}</h2>${ops.map(({ path, method, op }) => renderOperation(method, path, op)).join('')}`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(doc.info.title)} ${escape(doc.info.version)}</title><style>${STYLE}</style></head>
<body><nav><b>${escape(doc.info.title)}</b> ${escape(doc.info.version)}${nav}</nav>
<main><h1>${escape(doc.info.title)} <small>${escape(doc.info.version)}</small></h1>
<p>${prose(doc.info.description)}</p>
<p>The machine-readable document: <a href="/api/v1/openapi.json"><code>/api/v1/openapi.json</code></a> (OpenAPI ${escape(doc.openapi)}).</p>
<h2>Authentication</h2><table>${schemes}</table>
<h2>Errors</h2><details><summary>the error body</summary>${json(doc.components.schemas.Error)}</details>${sections}</main></body></html>`;
}
