import type { EvaluatorPatch } from '@app/domain';
import { dto } from '../rpc/rpc-input';

/** The evaluator fields as a client sends them: any JSON, until `validateEvaluatorInput` reads it. */
export type EvaluatorFieldsInput = { [K in keyof EvaluatorPatch]?: unknown };

/**
 * The input of a procedure that takes evaluator fields beside its ids. The ids go through
 * their DTO like every RPC input; the fields, and anything unknown, are passed on as sent
 * (`dto` keeps every property) for `validateEvaluatorInput`, the one place of
 * their rules, so that a message names a field (`filter.sampleRate: …`) the same way
 * whoever calls it, and an unknown field is refused by name rather than dropped.
 */
export function withEvaluatorFields<T extends object>(ids: new () => T): (input: unknown) => T & EvaluatorFieldsInput {
  return dto(ids);
}
