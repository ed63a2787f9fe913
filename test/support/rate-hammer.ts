import type { Stack } from './stack';
import { NATIVE_TRACES, postWithKey } from './ingest';

/** One answer to a request: the Unix second it arrived in, and whether it was accepted. */
export interface Answer {
  second: number;
  accepted: boolean;
}

/** An empty native batch: the cheapest request a key's rate limit counts. */
export const emptyBatch = (api: Pick<Stack, 'baseUrl'>, apiKey: string) => postWithKey(api, apiKey, NATIVE_TRACES, { batch: [] });

/**
 * Connections `hammer` sends on. An answer is counted in the second it arrives, so a request
 * the server accepted at the very end of a second may count in the next: the requests in
 * flight bound that skew, hence few (each still offers far more than a Free key's 100 a second).
 */
export const HAMMER_LANES = 4;

/** Sends empty batches back to back on `lanes` connections until `untilMs`. */
export async function hammer(api: Pick<Stack, 'baseUrl'>, apiKey: string, untilMs: number, lanes = HAMMER_LANES): Promise<Answer[]> {
  const answers: Answer[] = [];
  const lane = async () => {
    while (Date.now() < untilMs) {
      const res = await emptyBatch(api, apiKey);
      await res.arrayBuffer();
      answers.push({ second: Math.floor(Date.now() / 1_000), accepted: res.status === 201 });
    }
  };
  await Promise.all(Array.from({ length: lanes }, lane));
  return answers;
}

/** Answers per wall-clock second: how many there were, and how many accepted. */
export function perSecond(answers: Answer[]): Map<number, { answered: number; accepted: number }> {
  const seconds = new Map<number, { answered: number; accepted: number }>();
  for (const { second, accepted } of answers) {
    const s = seconds.get(second) ?? { answered: 0, accepted: 0 };
    s.answered++;
    if (accepted) s.accepted++;
    seconds.set(second, s);
  }
  return seconds;
}
