/** The OTel GenAI operation names of one call to a language model. */
export const LLM_OPERATIONS: readonly string[] = ['chat', 'text_completion', 'generate_content'];

/**
 * Whether a span is an LLM call (issue 26), for the overview's "LLM calls": its operation names
 * a call to a model (any case), or it has no operation and its type is LLM. A tool execution or
 * agent invocation sent with `gen_ai.*` keys is typed LLM by SPEC 2.3 row 2, and its operation
 * (`execute_tool`, `invoke_agent`) keeps it out.
 */
export function isLlmCall(span: { type: string | null | undefined; operation: string | null | undefined }): boolean {
  if (span.operation) return LLM_OPERATIONS.includes(span.operation.toLowerCase());
  return span.type === 'LLM';
}
