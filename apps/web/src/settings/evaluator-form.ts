/** The evaluator form's fields as the RPC takes them, and the server's messages by field. Pure. */

export interface EvaluatorFormValues {
  name: string;
  url: string;
  headers: string;
  timeoutMs: string;
  retries: string;
  spanTypes: string;
  names: string;
  sampleRate: string;
  enabled: boolean;
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * Headers are written one per line as `Name: value`. A blank number stays out of the input
 * so the server's default applies; anything else is sent as typed, so that SPEC 2.6's checks
 * (which live on the server alone) decide and name the field.
 */
export function toEvaluatorInput(v: EvaluatorFormValues, { keepHeaders }: { keepHeaders: boolean }) {
  const num = (s: string) => (s.trim() === '' ? undefined : Number(s));
  const headers = Object.fromEntries(
    v.headers
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean)
      .map((line) => {
        const at = line.indexOf(':');
        return at < 0 ? [line, ''] : [line.slice(0, at).trim(), line.slice(at + 1).trim()];
      }),
  );
  return {
    name: v.name,
    url: v.url,
    ...(keepHeaders ? {} : { headers }),
    timeoutMs: num(v.timeoutMs),
    retries: num(v.retries),
    filter: { spanTypes: list(v.spanTypes), names: list(v.names), sampleRate: num(v.sampleRate) },
    enabled: v.enabled,
  };
}
