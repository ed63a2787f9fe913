import { type DtoClass, ERROR_STATUS, type JsonSchema, isFieldDto, schemaOf } from '@app/domain';

/**
 * How a route authenticates: a project API key as a bearer token (`apiKey`), the same key as
 * Langfuse's Basic credentials too on `/api/public/*` (`langfuse`), a dashboard session's
 * access token (`session`), or nothing (`none`).
 */
export type RouteAuth = 'apiKey' | 'langfuse' | 'session' | 'none';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** A body of one media type: its schema and an example. */
export interface MediaDoc {
  readonly schema: JsonSchema;
  readonly example?: unknown;
}

/**
 * One answer of a route: its body's schema (none: an empty body) and the media type, JSON
 * unless said; or `content`, a body in each of several media types (an export's formats).
 */
export interface ResponseDoc {
  readonly description: string;
  readonly schema?: JsonSchema;
  readonly mediaType?: string;
  readonly example?: unknown;
  readonly content?: Readonly<Record<string, MediaDoc>>;
  /** Headers the answer carries, by name, with what each one says. */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * One REST route as the API describes it (docs/api.md): the request's parts as the DTO classes
 * the route reads them with, so the description and the validation are one declaration.
 */
export interface RouteDoc {
  readonly method: HttpMethod;
  /** Nest's spelling, `:name` for a parameter: the drift test compares it with the controllers'. */
  readonly path: string;
  readonly tag: string;
  readonly summary: string;
  readonly description?: string;
  readonly auth: RouteAuth;
  /** Path parameters by name, with what each one is. */
  readonly params?: Readonly<Record<string, string>>;
  readonly query?: DtoClass | JsonSchema;
  readonly body?: DtoClass | JsonSchema;
  readonly requestExample?: unknown;
  /** The answers the route chooses itself; the error answers every route may give are added (`errorStatuses`). */
  readonly responses: Readonly<Record<number, ResponseDoc>>;
}

/** A request part's schema: a DTO class's from its field rules, or one stated as is. */
export const partSchema = (part: DtoClass | JsonSchema): JsonSchema => (isFieldDto(part) ? schemaOf(part) : (part as JsonSchema));

const ERROR_CODES = Object.keys(ERROR_STATUS);

/** SPEC 7.2's error: the one error filter writes it (apps/api/src/http/error-handling.ts). */
export const ERROR_SCHEMA: JsonSchema = {
  type: 'object',
  properties: {
    code: { type: 'string', enum: ERROR_CODES, description: 'Stable machine-readable code; see ERROR_STATUS for its status.' },
    message: { type: 'string', description: 'What is wrong, naming the field at fault (`batch[3].body.startTime: …`).' },
  },
  required: ['code', 'message'],
};

export const ERROR_BODY: JsonSchema = {
  type: 'object',
  properties: { error: ERROR_SCHEMA },
  required: ['error'],
};

/** `/api/v1/auth/*` answer in the `{data, error}` envelope (SPEC 4.9–4.11). */
export const ENVELOPE_ERROR_BODY: JsonSchema = {
  type: 'object',
  properties: { data: { type: 'null' }, error: ERROR_SCHEMA },
  required: ['data', 'error'],
};

const codesOf = (status: number) => ERROR_CODES.filter((code) => ERROR_STATUS[code as keyof typeof ERROR_STATUS] === status);

/** The error answers a route may give besides its own: from what it authenticates with and whether it reads a body. */
export function errorStatuses(route: RouteDoc): number[] {
  const statuses = [400, 404, 500, 503];
  if (route.auth !== 'none') statuses.push(401, 429);
  if (route.auth === 'apiKey' || route.auth === 'langfuse') statuses.push(403);
  if (route.method !== 'GET' && route.method !== 'DELETE') statuses.push(413, 415);
  if (route.path.startsWith('/api/v1/auth/')) statuses.push(429);
  return [...new Set(statuses)].sort((a, b) => a - b);
}

export const errorDescription = (status: number): string => `Error: ${codesOf(status).join(' or ')}`;
