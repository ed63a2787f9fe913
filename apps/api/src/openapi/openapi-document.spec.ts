import { METHOD_METADATA, MODULE_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { RequestMethod } from '@nestjs/common';
import { AppModule } from '../app.module';
import { buildOpenApiDocument, openApiPath } from './openapi-document';
import { renderReferencePage } from './reference-page';
import { ROUTE_DOCS } from './routes';
import { documentProblems, inlineRefs, strictAjv } from './testing/response-validator';

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
      return prefixes.flatMap((prefix) =>
        paths.map((path) => `${method} ${`/${prefix}/${path}`.replace(/\/+/g, '/').replace(/(.)\/$/, '$1')}`),
      );
    });
  });
}

const documented = ROUTE_DOCS.map((r) => `${r.method} ${r.path}`);
const doc = buildOpenApiDocument(ROUTE_DOCS, '0.0.0-test');

describe(buildOpenApiDocument.name, () => {
  it('describes every route of the controllers, and no route they do not have', () => {
    const routes = controllerRoutes();
    expect(routes.length).toBeGreaterThan(40);
    expect(routes.filter((r) => !documented.includes(r))).toEqual([]);
    expect(documented.filter((r) => !routes.includes(r))).toEqual([]);
    expect(new Set(documented).size).toBe(documented.length);
  });

  it('is an OpenAPI 3.1 document whose every schema compiles as JSON Schema 2020-12', () => {
    expect(documentProblems(doc)).toEqual([]);
    expect(doc.components.securitySchemes).toMatchObject({ apiKey: { scheme: 'bearer' }, langfuseBasic: { scheme: 'basic' } });
  });

  it('gives examples that match their schemas', () => {
    const ajv = strictAjv();
    const examples = Object.values(doc.paths)
      .flatMap((item) => Object.values(item))
      .flatMap((op) => [
        ...Object.values(op.requestBody?.content ?? {}),
        ...Object.values(op.responses).flatMap((r) => Object.values(r.content ?? {})),
      ])
      .filter((media) => media.example !== undefined);
    expect(examples.length).toBeGreaterThan(10);
    for (const { schema, example } of examples) {
      const validate = ajv.compile(inlineRefs(schema, doc) as object);
      expect([validate(example), ajv.errorsText(validate.errors)]).toEqual([true, 'No errors']);
    }
  });

  it('finds what is wrong with a broken document', () => {
    const broken = structuredClone(doc);
    broken.paths['/api/v1/traces/{id}'].get.parameters = [];
    broken.paths['/api/v1/traces'].get.responses['200'].content = {
      'application/json': { schema: { type: 'object', minimum: 'x' } as never },
    };
    expect(documentProblems(broken)).toEqual([
      expect.stringMatching(/^GET \/api\/v1\/traces 200 application\/json: schema is invalid: .*minimum/),
      'GET /api/v1/traces/{id}: path parameters  do not match the template',
    ]);
  });

  it('is held to the official OpenAPI 3.1 schema: a response without its description or an unknown field is refused', () => {
    const broken = structuredClone(doc) as unknown as { info: Record<string, unknown>; paths: Record<string, Record<string, any>> };
    delete broken.paths['/api/v1/traces'].get.responses['200'].description;
    broken.info.colour = 'blue';
    expect(documentProblems(broken as never)).toEqual(
      expect.arrayContaining([
        "/paths/~1api~1v1~1traces/get/responses/200 must have required property 'description'",
        '/info must NOT have unevaluated properties',
      ]),
    );
  });

  it('reads request parts from the DTOs the routes validate with', () => {
    const login = doc.paths['/api/v1/auth/login'].post;
    expect(login.requestBody?.content['application/json'].schema).toMatchObject({
      properties: { email: { type: 'string' }, password: { type: 'string' } },
      required: ['email', 'password'],
    });
    expect(doc.paths[openApiPath('/api/v1/traces/:id')].get.parameters[0]).toMatchObject({ name: 'id', in: 'path' });
    expect(doc.paths['/api/v1/traces'].get.parameters.map((p) => p.name)).toEqual(
      expect.arrayContaining(['limit', 'cursor', 'userId', 'tags']),
    );
  });

  it('renders the reference page with every operation and nothing loaded from elsewhere', () => {
    const page = renderReferencePage(doc);
    for (const item of Object.values(doc.paths)) for (const op of Object.values(item)) expect(page).toContain(`id="${op.operationId}"`);
    expect(page).not.toMatch(/<script|<link|src=|https?:\/\/(?!spec\.openapis)/);
  });
});
