import type { JsonSchema } from '@app/domain';
import {
  ENVELOPE_ERROR_BODY,
  ERROR_BODY,
  type ResponseDoc,
  type RouteAuth,
  type RouteDoc,
  errorDescription,
  errorStatuses,
  partSchema,
} from './route-doc';

/** An OpenAPI 3.1 document, as JSON. */
export type OpenApiDocument = {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  jsonSchemaDialect: string;
  tags: { name: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: {
    securitySchemes: Record<string, object>;
    schemas: Record<string, JsonSchema>;
  };
};

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export interface OpenApiOperation {
  operationId: string;
  tags: string[];
  summary: string;
  description?: string;
  security: Record<string, string[]>[];
  parameters: OpenApiParameter[];
  requestBody?: { required: true; content: Record<string, { schema: JsonSchema; example?: unknown }> };
  responses: Record<
    string,
    {
      description: string;
      headers?: Record<string, { description: string; schema: JsonSchema }>;
      content?: Record<string, { schema: JsonSchema | { $ref: string }; example?: unknown }>;
    }
  >;
}

const SECURITY_SCHEMES = {
  apiKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'A project API key (`sl_…`): `Authorization: Bearer <API_KEY>`.',
  },
  langfuseBasic: {
    type: 'http',
    scheme: 'basic',
    description: "Langfuse's SDK credentials on `/api/public/*`: any public key as the user, the Spanlog API key as the password.",
  },
  session: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: "A dashboard session's access token, from POST /api/v1/auth/login.",
  },
} as const;

const SECURITY: Record<RouteAuth, Record<string, string[]>[]> = {
  apiKey: [{ apiKey: [] }],
  langfuse: [{ apiKey: [] }, { langfuseBasic: [] }],
  session: [{ session: [] }],
  none: [],
};

/** `/api/v1/traces/:id` → `/api/v1/traces/{id}`. */
export const openApiPath = (nestPath: string): string => nestPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

const operationId = (route: RouteDoc): string =>
  [route.method.toLowerCase(), ...route.path.split(/[/:{}.-]+/).filter(Boolean)]
    .map((part, i) => (i === 0 ? part : part[0].toUpperCase() + part.slice(1)))
    .join('');

function parameters(route: RouteDoc): OpenApiParameter[] {
  const path = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map(([, name]): OpenApiParameter => ({
    name,
    in: 'path',
    required: true,
    ...(route.params?.[name] && { description: route.params[name] }),
    schema: { type: 'string' },
  }));
  const query = route.query ? partSchema(route.query) : { properties: {} };
  return [
    ...path,
    ...Object.entries(query.properties ?? {}).map(([name, schema]): OpenApiParameter => ({
      name,
      in: 'query',
      required: query.required?.includes(name) ?? false,
      ...(schema.description && { description: schema.description }),
      schema,
    })),
  ];
}

function responses(route: RouteDoc): OpenApiOperation['responses'] {
  const errorRef = { $ref: `#/components/schemas/${route.path.startsWith('/api/v1/auth/') ? 'EnvelopeError' : 'Error'}` };
  const out: OpenApiOperation['responses'] = {};
  const own: [number, ResponseDoc][] = Object.entries(route.responses).map(([status, doc]) => [Number(status), doc]);
  const declared = new Map(own);
  for (const status of [...new Set([...own.map(([s]) => s), ...errorStatuses(route)])].sort((a, b) => a - b)) {
    const doc = declared.get(status);
    const schema = doc?.schema ?? (status >= 400 ? errorRef : undefined);
    const headers = Object.entries(doc?.headers ?? {}).map(([name, description]) => [name, { description, schema: { type: 'string' } }]);
    out[String(status)] = {
      description: doc?.description ?? errorDescription(status),
      ...(headers.length > 0 && { headers: Object.fromEntries(headers) }),
      ...(doc?.content
        ? { content: { ...doc.content } }
        : schema && {
            content: { [doc?.mediaType ?? 'application/json']: { schema, ...(doc?.example !== undefined && { example: doc.example }) } },
          }),
    };
  }
  return out;
}

function operation(route: RouteDoc): OpenApiOperation {
  return {
    operationId: operationId(route),
    tags: [route.tag],
    summary: route.summary,
    ...(route.description && { description: route.description }),
    security: SECURITY[route.auth],
    parameters: parameters(route),
    ...(route.body && {
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: partSchema(route.body),
            ...(route.requestExample !== undefined && { example: route.requestExample }),
          },
        },
      },
    }),
    responses: responses(route),
  };
}

/** The OpenAPI 3.1 document of `routes`: built once at start-up from the route registry (routes.ts). */
export function buildOpenApiDocument(routes: readonly RouteDoc[], version: string): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  for (const route of routes) (paths[openApiPath(route.path)] ??= {})[route.method.toLowerCase()] = operation(route);
  return {
    openapi: '3.1.0',
    info: {
      title: 'Spanlog API',
      version,
      description:
        'Ingest and read LLM traces, scores, prompts and datasets. Errors answer `{error: {code, message}}` ' +
        '(`{data: null, error}` on /api/v1/auth/*); a 429 or 503 carries Retry-After. The Langfuse-compatible ' +
        "routes live under /api/public and accept Langfuse's Basic credentials.",
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    tags: [...new Set(routes.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: SECURITY_SCHEMES,
      schemas: { Error: ERROR_BODY, EnvelopeError: ENVELOPE_ERROR_BODY },
    },
  };
}
