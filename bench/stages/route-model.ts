import type { Pool } from 'pg';
import { runCli } from '../../test/support/stack';
import { percentile } from '../stats';

export interface RouteModelFigures {
  /** Spans of the routed models in the project, each counted in the stats the route read. */
  spans: number;
  models: number;
  /** `spanlog rebuild model-stats`: every hour counted again from the span rows. */
  recountSeconds: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
}

const SPANS = 1_000_000;
/** Names no other stage's spans use, so the route counts these spans alone. */
const MODELS = ['bench-model-a', 'bench-model-b', 'bench-model-c', 'bench-model-d', 'bench-model-e'];
const REQUESTS = 500;

/**
 * POST /api/v1/route-model over a project holding a million spans of five models spread over
 * the last 24 hours. The spans are written straight into the span table (generate_series),
 * since what the route reads is the model-stats read model counted from those rows, not how they
 * arrived; the stats are then counted again from the rows as `spanlog rebuild model-stats` does.
 * Every answer must count all the spans, or the stage fails.
 */
export async function measureRouteModel(
  db: Pool,
  env: NodeJS.ProcessEnv,
  api: { baseUrl: string; apiKey: string },
  projectId: string,
): Promise<RouteModelFigures> {
  await db.query(
    `INSERT INTO spans (project_id, id, trace_id, name, type, model, start_time, end_time, cost, prompt_tokens, completion_tokens, created_at)
     SELECT $1, gen_random_uuid(), gen_random_uuid(), 'chat', 'LLM', ($2::text[])[1 + i % $3], t, t + (50 + (i::bigint * 7919) % 3000) * interval '1 millisecond',
            0.0001 * (1 + i % 7), 20 + i % 50, 5 + i % 30, now()
       FROM generate_series(1, $4) AS i, LATERAL (SELECT now() - (i % 86000) * interval '1 second' AS t) s`,
    [projectId, MODELS, MODELS.length, SPANS],
  );
  const recount = await runCli(['rebuild', 'model-stats', '--json'], env);
  if (recount.code !== 0) throw new Error(`model-stats recount failed: ${recount.stderr}`);
  const recountSeconds = (JSON.parse(recount.stdout) as { durationMs: number }).durationMs / 1_000;

  const latencies: number[] = [];
  for (let i = 0; i < REQUESTS; i++) {
    const started = performance.now();
    const res = await fetch(`${api.baseUrl}/api/v1/route-model`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ candidates: MODELS, objective: i % 2 ? 'cost' : 'balanced', constraints: { maxP95LatencyMs: 2_500 } }),
    });
    const body = (await res.json()) as { candidates?: { stats: { calls: number } }[] };
    latencies.push(performance.now() - started);
    const counted = body.candidates?.reduce((n, c) => n + c.stats.calls, 0);
    if (res.status !== 200 || counted !== SPANS)
      throw new Error(`route-model answered ${res.status} counting ${counted} of ${SPANS} spans`);
  }
  return {
    spans: SPANS,
    models: MODELS.length,
    recountSeconds,
    requests: REQUESTS,
    p50Ms: percentile(latencies, 0.5) as number,
    p99Ms: percentile(latencies, 0.99) as number,
    maxMs: Math.max(...latencies),
  };
}
