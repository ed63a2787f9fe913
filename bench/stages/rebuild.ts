import { runCli } from '../../test/support/stack';

export interface RebuildFigures {
  messages: number;
  spans: number;
  traces: number;
  seconds: number;
  spansPerS: number;
}

/**
 * `spanlog rebuild` as an operator runs it, over everything the run left in INGEST (the
 * projection's backlog and the end-to-end load), while the processor keeps running.
 */
export async function measureRebuild(env: NodeJS.ProcessEnv): Promise<RebuildFigures> {
  const res = await runCli(['rebuild', 'telemetry', '--json'], env);
  if (res.code !== 0) throw new Error(`rebuild failed: ${res.stderr}`);
  const r = JSON.parse(res.stdout) as { messages: number; spans: number; traces: number; durationMs: number };
  const seconds = r.durationMs / 1_000;
  return { messages: r.messages, spans: r.spans, traces: r.traces, seconds, spansPerS: r.spans / seconds };
}
