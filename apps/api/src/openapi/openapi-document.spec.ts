import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { AppModule } from '../app.module';
import { buildOpenApiDocument, openApiPath } from './openapi-document';
import { renderReferencePage } from './reference-page';
import { ROUTE_DOCS } from './routes';
import { inlineRefs, strictAjv } from './testing/response-validator';

/** Every route Nest maps from the app's controllers, as `METHOD /path` with `:param`s. */
function controllerRoutes(): string[] {
  const controllers = Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, AppModule) as (new (...args: never[]) => object)[];
  return controllers.flatMap((controller) => {
    const prefixes = [Reflect.getMetadata(PATH_METADATA, controller) as string | string[]].flat();
    const proto = controller.prototype as Record<string, unknown>;
    return Object.getOwnPropertyNames(proto).flatMap((name) => {
      const handler = proto[name];
      if (typeof handler !== 'function' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) return [];
      const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod];
      const paths = [Reflect.getMetadata(PATH_METADATA, handler) as string | string[]].flat();
      return prefixes.flatMap((prefix) => paths.map((path) => `${method} ${`/${prefix}/${path}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1')}`));
    });
  });
}

const documented = ROUTE_DOCS.map((r) => `${r.method} ${r.path}`);
const doc = buildOpenApiDocument(ROUTE_DOCS, '0.0.0-test');
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

describe('the OpenAPI document', () => {
  it('describes every route of the controllers, and no route they do not have', () => {
    const routes = controllerRoutes();
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.filter((r) => !documented.includes(r))).toEqual([]);
    expect(documented.filter((r) => !routes.includes(r))).toEqual([]);
    expect(new Set(documented).size).toBe(documented.length);
  });

  it('is an OpenAPI 3.1 document: every schema compiles as JSON Schema 2020-12', () => {
    const ajv = strictAjv();
    const schemas: unknown[] = [];
    for (const item of Object.values(doc.paths))
      for (const op of Object.values(item)) {
        schemas.push(...op.parameters.map((p) => p.schema));
        schemas.push(...Object.values(op.requestBody?.content ?? {}).map((m) => m.schema));
        for (const response of Object.values(op.responses)) schemas.push(...Object.values(response.content ?? {}).map((m) => m.schema));
      }
    expect(schemas.length).toBeGreaterThan(200);
    for (const schema of schemas) expect(() => ajv.compile(inlineRefs(schema, doc) as object)).not.toThrow();
  });

  it('has the structure OpenAPI 3.1 requires of it', () => {
    expect(doc).toMatchObject({ openapi: '3.1.0', info: { title: expect.any(String), version: '0.0.0-test' } });
    const operationIds = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(path.startsWith('/')).toBe(true);
      const templated = [...path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => name);
      for (const [method, op] of Object.entries(item)) {
        expect(METHODS).toContain(method);
        expect(operationIds.has(op.operationId)).toBe(false);
        operationIds.add(op.operationId);
        // Each templated segment has its required path parameter, and nothing else is `in: path`.
        expect(op.parameters.filter((p) => p.in === 'path').map((p) => p.name)).toEqual(templated);
        expect(op.parameters.filter((p) => p.in === 'path').every((p) => p.required)).toBe(true);
        for (const requirement of op.security) for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes).toHaveProperty(scheme);
        expect(Object.keys(op.responses).length).toBeGreaterThan(0);
        for (const [status, response] of Object.entries(op.responses)) {
          expect(status).toMatch(/^[1-5]\d\d$/);
          expect(response.description).toEqual(expect.any(String));
        }
        expect(doc.tags.map((t) => t.name)).toEqual(expect.arrayContaining(op.tags));
      }
    }
    expect(doc.components.securitySchemes).toMatchObject({ apiKey: { scheme: 'bearer' }, langfuseBasic: { scheme: 'basic' } });
  });

  it('reads request parts from the DTOs the routes validate with', () => {
    const login = doc.paths['/api/v1/auth/login'].post;
    expect(login.requestBody?.content['application/json'].schema).toMatchObject({
      properties: { email: { type: 'string' }, password: { type: 'string' } },
      required: ['email', 'password'],
    });
    expect(doc.paths[openApiPath('/api/v1/traces/:id')].get.parameters[0]).toMatchObject({ name: 'id', in: 'path' });
    expect(doc.paths['/api/v1/traces'].get.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['limit', 'cursor', 'userId', 'tags']));
  });

  it('renders the reference page with every operation and nothing loaded from elsewhere', () => {
    const page = renderReferencePage(doc);
    for (const item of Object.values(doc.paths)) for (const op of Object.values(item)) expect(page).toContain(`id="${op.operationId}"`);
    expect(page).not.toMatch(/<script|<link|src=|https?:\/\/(?!spec\.openapis)/);
  });
});
