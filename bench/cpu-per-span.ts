import { foldFacts, parseJsonSafely } from '@app/domain';
import { OTLP_MESSAGE_ENVELOPE } from '@app/otlp/testing/otlp-builders';
import { ingestFactsOf, prepareTelemetry } from '@app/projections';
import { otlpPayload, takeRequestNumber } from './payloads';

/**
 * The processor's CPU per span offline (docs/BENCHMARKS.md, issue 25): the bench's OTLP
 * exports decoded as the processor decodes them (parse; validate, convert and fold each message
 * with the projection's own `ingestFactsOf`; fold the batch; serialize),
 * in 64-export batches, CPU time of this process per step. CPU time moves far less than wall
 * time with the neighbours' load, so two builds compared with it, alternately, say which is
 * cheaper. `node dist/bench/bench/cpu-per-span.js [batches]` (after `npm run bench:stage`'s build).
 */
const MESSAGES_PER_BATCH = 64;

async function main(): Promise<void> {
  const batches = Number(process.argv[2] ?? '30');
  const payload = otlpPayload();
  const cpu = { parse: 0, convert: 0, fold: 0, serialize: 0 };
  const timed = <T>(step: keyof typeof cpu, run: () => T): T => {
    const started = process.cpuUsage();
    const result = run();
    const used = process.cpuUsage(started);
    cpu[step] += used.user + used.system;
    return result;
  };
  let spans = 0;
  // The first fifth warms the JIT up and is not counted.
  const warmUp = Math.ceil(batches / 5);
  for (let b = 0; b < warmUp + batches; b++) {
    const texts = Array.from({ length: MESSAGES_PER_BATCH }, () => payload.render(takeRequestNumber()));
    if (b === warmUp) {
      for (const step of Object.keys(cpu) as (keyof typeof cpu)[]) cpu[step] = 0;
      spans = 0;
    }
    const bodies = timed('parse', () => texts.map((text) => parseJsonSafely(text, 'remove')));
    const facts = timed('convert', () => bodies.map((body) => ingestFactsOf(OTLP_MESSAGE_ENVELOPE, body)));
    const folded = timed('fold', () => foldFacts(facts));
    const started = process.cpuUsage();
    await prepareTelemetry(folded);
    const used = process.cpuUsage(started);
    cpu.serialize += used.user + used.system;
    spans += folded.spans.length;
  }
  const perSpan = Object.fromEntries(Object.entries(cpu).map(([step, us]) => [step, Number((us / spans).toFixed(1))]));
  const total = Object.values(cpu).reduce((a, b) => a + b, 0) / spans;
  process.stdout.write(`${JSON.stringify({ spans, ...perSpan, total: Number(total.toFixed(1)) })}\n`);
}

void main();
