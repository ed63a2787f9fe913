import { type LoadFigures, runLoad } from '../load';
import type { Payload } from '../payloads';

export interface AcceptanceTarget {
  baseUrl: string;
  apiKey: string;
  apiPid: number | null;
}

/**
 * What the API accepts (2xx, durable in JetStream) per second at each concurrency level,
 * with the processor consuming meanwhile as in production. Latency is the client's: from
 * sending the request to the answer, which waits for every publish acknowledgement.
 */
export async function measureAcceptance(
  target: AcceptanceTarget,
  payload: Payload,
  levels: number[],
  durationS: number,
): Promise<LoadFigures[]> {
  const figures: LoadFigures[] = [];
  for (const connections of levels) {
    figures.push(await runLoad({ baseUrl: target.baseUrl, apiKey: target.apiKey, payload, connections, durationS, rssPid: target.apiPid }));
  }
  return figures;
}
