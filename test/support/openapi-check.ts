import type { OpenApiDocument } from '../../apps/api/src/openapi/openapi-document';
import { ResponseValidator } from '../../apps/api/src/openapi/testing/response-validator';

/** Every REST answer the API helpers receive is checked against the OpenAPI document, unless `SPANLOG_OPENAPI_CHECK=0`. */
export const OPENAPI_CHECK = process.env.SPANLOG_OPENAPI_CHECK !== '0';

const validators = new Map<string, Promise<ResponseValidator>>();

/**
 * The document as this source builds it, for a stack whose API is stopped when its first answer
 * is checked; required only then, as the registry loads the API's DTOs.
 */
function builtDocument(): OpenApiDocument {
  const { buildOpenApiDocument } =
    require('../../apps/api/src/openapi/openapi-document') as typeof import('../../apps/api/src/openapi/openapi-document');
  const { ROUTE_DOCS } = require('../../apps/api/src/openapi/routes') as typeof import('../../apps/api/src/openapi/routes');
  return buildOpenApiDocument(ROUTE_DOCS, 'test');
}

/** The validator of the document the API at `baseUrl` serves, fetched once per stack. */
export function validatorFor(baseUrl: string): Promise<ResponseValidator> {
  let validator = validators.get(baseUrl);
  if (!validator) {
    validator = fetch(`${baseUrl}/api/v1/openapi.json`)
      .then(async (res) => (res.status === 200 ? ((await res.json()) as OpenApiDocument) : builtDocument()))
      .catch(builtDocument)
      .then((doc) => new ResponseValidator(doc));
    validators.set(baseUrl, validator);
  }
  return validator;
}

/**
 * Fails when a REST answer does not match the document: a status it does not declare for the
 * route, or a body off its schema. tRPC (not REST) is not described; a 404 or 405 of a path no
 * route has is what the document implies.
 */
export async function checkAnswer(baseUrl: string, method: string, path: string, status: number, body: unknown): Promise<void> {
  if (path.startsWith('/api/trpc/')) return;
  const validator = await validatorFor(baseUrl);
  if (!validator.operation(method, path) && (status === 404 || status === 405)) return;
  const problem = validator.check(method, path, status, body);
  if (problem) throw new Error(`the answer does not match the OpenAPI document: ${problem}`);
}
