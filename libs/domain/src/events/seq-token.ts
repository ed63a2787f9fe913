/**
 * Read-your-writes token (CONTRACT "Read-your-writes"): names a stream and a sequence in
 * it, e.g. `ingest.1042`. Opaque to clients; only this module reads or writes it.
 */
export interface SeqToken {
  stream: 'ingest';
  seq: number;
}

const TOKEN = /^(ingest)\.(\d{1,15})$/;

export const encodeSeqToken = (t: SeqToken): string => `${t.stream}.${t.seq}`;

export function decodeSeqToken(value: string): SeqToken | null {
  const m = TOKEN.exec(value.trim());
  return m ? { stream: m[1] as SeqToken['stream'], seq: Number(m[2]) } : null;
}
