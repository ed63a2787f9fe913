import type { LoadFigures } from './load';
import { type BenchResults, type Bound, type Ratio, best, fastestInsert } from './results';

/**
 * The run as Markdown: readable in a terminal and pasted as is into docs/BENCHMARKS.md.
 */

const int = (n: number | null | undefined): string => (n === null || n === undefined ? '–' : Math.round(n).toLocaleString('en-US'));
const ms = (n: number | null | undefined): string => (n === null || n === undefined ? '–' : n < 10 ? n.toFixed(1) : int(n));
const pct = (r: Ratio): string => `${(r.value * 100).toFixed(0)}% (target ≥ ${(r.target * 100).toFixed(0)}%: ${r.met ? 'met' : 'NOT met'})`;
const atMost = (b: Bound, unit: string): string =>
  `${b.value === null ? 'never reached' : `${b.value.toFixed(unit === 's' ? 1 : 0)} ${unit}`} (target ≤ ${b.atMost} ${unit}: ${b.met ? 'met' : 'NOT met'})`;
const share = (value: number, limit: number): string => `${((value / limit) * 100).toFixed(0)}%`;

function table(header: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

function loadRow(stage: string, f: LoadFigures, unit: string, limit?: number): string[] {
  const failures = f.failed
    ? ` (${f.failed} failed: ${
        Object.entries(f.statusCodes)
          .filter(([code]) => !code.startsWith('2'))
          .map(([code, n]) => `${n}×${code}`)
          .join(', ') || 'errors'
      })`
    : '';
  return [
    stage,
    String(f.connections),
    `${int(f.itemsPerS)} ${unit}${failures}`,
    ms(f.p50Ms),
    ms(f.p99Ms),
    int(f.rssMaxMb),
    limit ? share(f.itemsPerS, limit) : '',
  ];
}

/** Horizontal bars of throughput per concurrency level, one bar per series. */
function throughputChart(series: { name: string; figures: LoadFigures[] }[], width = 48): string {
  const max = Math.max(...series.flatMap((s) => s.figures.map((f) => f.itemsPerS)), 1);
  const levels = [...new Set(series.flatMap((s) => s.figures.map((f) => f.connections)))].sort((a, b) => a - b);
  const nameWidth = Math.max(...series.map((s) => s.name.length));
  const lines = [`spans (native: events) per second by concurrency; full width = ${int(max)}/s`];
  for (const c of levels) {
    lines.push(`c=${c}`);
    for (const s of series) {
      const f = s.figures.find((x) => x.connections === c);
      if (!f) continue;
      const bar = '█'.repeat(Math.max(f.itemsPerS > 0 ? 1 : 0, Math.round((f.itemsPerS / max) * width)));
      lines.push(`  ${s.name.padEnd(nameWidth)} ${bar} ${int(f.itemsPerS)}`);
    }
  }
  return lines.join('\n');
}

export function renderReport(r: BenchResults): string {
  const fastify = best(r.limits.fastifyParse).itemsPerS;
  const pg = fastestInsert(r.limits.postgresInsert).rowsPerS;
  const lean = fastestInsert(r.limits.postgresInsert, 'lean').rowsPerS;
  const js = r.limits.jetstreamPublish;
  const e2e = r.endToEnd;
  const header = ['stage', 'conc.', 'throughput', 'p50 ms', 'p99 ms', 'RSS MB', 'of limit'];
  const rows: string[][] = [
    ...r.limits.fastifyParse.map((f) => loadRow('1 limit: bare Fastify parse', f, 'spans/s')),
    [
      '1 limit: JetStream async publish',
      String(js.inFlight),
      `${int(js.itemsPerS)} spans/s (${int(js.messagesPerS)} msg/s, ${int(js.mbPerS)} MB/s)`,
      '',
      '',
      '',
      '',
    ],
    ...r.limits.postgresInsert.map((f) => {
      const limit = f.shape === 'lean' ? lean : pg;
      return [
        f.shape === 'lean' ? `1 limit: Postgres lean upsert, ${f.method}` : `1 history: Postgres fat insert, ${f.method}`,
        '1',
        `${int(f.rowsPerS)} spans/s (${int(f.rowsPerStatement)} rows/statement)`,
        '',
        '',
        '',
        f.rowsPerS === limit ? (f.shape === 'lean' ? 'the limit' : 'fat limit') : share(f.rowsPerS, limit),
      ];
    }),
    ...r.acceptance.otlp.map((f) => loadRow('2 API OTLP export', f, 'spans/s', fastify)),
    ...r.acceptance.native.map((f) => loadRow('2 API native batch', f, 'events/s', fastify)),
    ...r.acceptance.otlpProcessorPaused.map((f) => loadRow('2 API OTLP, processor paused', f, 'spans/s', fastify)),
    [
      '3 projection: drain backlog',
      '1',
      `${int(r.projection.spansPerS)} rows visible/s (${int(r.projection.rows.visible)} of ${int(r.projection.spans)} spans in ${r.projection.seconds.toFixed(1)} s)`,
      '',
      '',
      '',
      share(r.projection.spansPerS, lean),
    ],
    [
      '3 projection beside the loaded API',
      '1',
      `${int(r.projection.underLoadSpansPerS)} rows visible/s (during the OTLP series, processor running)`,
      '',
      '',
      '',
      share(r.projection.underLoadSpansPerS, lean),
    ],
    [
      '4 end to end (answer → visible)',
      String(e2e.background.connections),
      `${int(e2e.background.itemsPerS + e2e.probeSpansPerS)} spans/s (${int(e2e.targetSpansPerS)} asked); ${e2e.probes} probes${e2e.timedOut ? `, ${e2e.timedOut} timed out` : ''}${e2e.failed ? `, ${e2e.failed} failed` : ''}; ${int(e2e.rows.visible)} of ${int(e2e.rows.expected)} accepted spans are rows`,
      ms(e2e.p50Ms),
      ms(e2e.p99Ms),
      int(e2e.background.rssMaxMb),
      '',
    ],
    [
      `4 burst (${r.settings.burstSeconds} s flat out)`,
      String(r.burst.load.connections),
      `${int(r.burst.load.itemsPerS)} spans/s accepted${r.burst.load.failed ? ` (${r.burst.load.failed} requests not 2xx)` : ''}; ${int(r.burst.visibleAtEnd)} of ${int(r.burst.acceptedSpans)} spans readable at its end, all ${r.burst.visibleAfterS === null ? 'never' : `${r.burst.visibleAfterS.toFixed(1)} s`} later (last trace ${r.burst.lastTraceAfterS === null ? 'never' : `${r.burst.lastTraceAfterS.toFixed(1)} s`}); ${int(r.burst.appliedSpansPerS)} rows/s`,
      ms(r.burst.load.p50Ms),
      ms(r.burst.load.p99Ms),
      int(r.burst.load.rssMaxMb),
      share(r.burst.appliedSpansPerS, lean),
    ],
    [
      '5 rebuild (spanlog rebuild)',
      '1',
      `${int(r.rebuild.spansPerS)} spans/s (${int(r.rebuild.spans)} spans, ${int(r.rebuild.messages)} messages in ${r.rebuild.seconds.toFixed(1)} s)`,
      '',
      '',
      '',
      share(r.rebuild.spansPerS, lean),
    ],
    [
      '6 route-model over 1M spans',
      '1',
      `p50 ${r.routeModel.p50Ms.toFixed(1)} ms, p99 ${r.routeModel.p99Ms.toFixed(1)} ms (${int(r.routeModel.requests)} routes; stats of ${int(r.routeModel.spans)} spans counted again in ${r.routeModel.recountSeconds.toFixed(1)} s)`,
      '',
      '',
      '',
      '',
    ],
  ];
  const m = r.machine;
  return [
    `Spanlog bench, ${r.startedAt}: ${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB, Node ${m.node}, NATS ${m.nats}, PostgreSQL ${m.postgres}; ` +
      `load average ${m.loadAvgAtStart.toFixed(2)} at start, ${m.loadAvgAtEnd.toFixed(2)} at end; ${r.durationS.toFixed(0)} s.`,
    `Payload: OTLP export of ${r.payload.otlp.spans} spans (${int(r.payload.otlp.bytes)} bytes), native batch of ${r.payload.native.events} events (${int(r.payload.native.bytes)} bytes); ` +
      `${r.settings.secondsPerLevel} s per level; end to end at ${e2e.basis}.`,
    '',
    table(header, rows),
    '',
    `- API acceptance / bare Fastify parse: ${pct(r.ratios.acceptanceToFastify)}; with the processor paused: ${pct(r.ratios.acceptancePausedToFastify)}`,
    `- rows visible / lean raw upsert of the same spans (the machine's limit for the work): ${pct(r.ratios.rowsVisibleToLeanInsert)}`,
    `- rows visible / fat raw insert of our own rows (history): ${pct(r.ratios.rowsVisibleToRawInsert)} against the faster; ${pct(r.ratios.rowsVisibleToUnnestInsert)} against \`unnest\``,
    `- end to end p99 at half the pipeline's maximum: ${atMost(r.bounds.endToEndP99Ms, 'ms')}`,
    `- every span a ${r.settings.burstSeconds} s burst acknowledged readable after its end: ${atMost(r.bounds.burstVisibleS, 's')}`,
    ...(r.failures.length
      ? r.failures.map((f) => `- FAILED ${f}`)
      : ['- every accepted span of the projection, end-to-end and burst stages is a row, exactly once']),
    `- unapplied messages purged after the acceptance series (OTLP, native, paused): ${r.acceptance.purged.otlp}, ${r.acceptance.purged.native}, ${r.acceptance.purged.otlpProcessorPaused}; dead-lettered: ${r.deadLettered}`,
    '- where the rest goes and the plan: docs/BENCHMARKS.md',
    '',
    '```',
    throughputChart([
      { name: 'bare Fastify', figures: r.limits.fastifyParse },
      { name: 'API OTLP', figures: r.acceptance.otlp },
      { name: 'API native', figures: r.acceptance.native },
      { name: 'API OTLP, processor paused', figures: r.acceptance.otlpProcessorPaused },
    ]),
    '```',
  ].join('\n');
}
