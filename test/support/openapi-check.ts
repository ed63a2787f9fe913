import type { OpenApiDocument } from '../../apps/api/src/openapi/openapi-document';
import { ResponseValidator } from '../../apps/api/src/openapi/testing/response-validator';

/** `SPANLOG_OPENAPI_CHECK=1`: every REST answer the API helpers receive is checked against the stack's OpenAPI document. */
export const OPENAPI_CHECK = process.env.SPANLOG_OPENAPI_CHECK === '1';

const validators = new Map<string, Promise<ResponseValidator>>();

/** The validator of the document the API at `baseUrl` serves, fetched once per stack. */
export function validatorFor(baseUrl: string): Promise<ResponseValidator> {
  let validator = validators.get(baseUrl);
  if (!validator) {
    validator = fetch(`${baseUrl}/api/v1/openapi.json`).then(async (res) => {
      if (res.status !== 200) throw new Error(`/api/v1/openapi.json answered ${res.status}`);
      return new ResponseValidator((await res.json()) as OpenApiDocument);
    });
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
