import { isOtelSpanId, nativeId, otelSpanUuid } from '../ids';

/**
 * Every UUID a client-supplied span id may stand for within its trace: the UUID it is, a
 * native id, or (in a trace with an OTel id) a 16-hex OTel span id, any case (CONTRACT "General").
 */
export function spanIdCandidates(value: string, otelTraceHex: string | null): string[] {
  const candidates = new Set<string>([nativeId(value).id]);
  if (otelTraceHex && isOtelSpanId(value)) candidates.add(otelSpanUuid(otelTraceHex, value));
  return [...candidates];
}
