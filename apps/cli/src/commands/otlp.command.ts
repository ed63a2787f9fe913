import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { MAX_JSON_DEPTH, jsonDepthExceeds, parseJsonSafely } from '@app/domain';
import { type ExportTraceServiceRequest, type SpanExplanation, explainOtlpRequest, validateOtlpRequest } from '@app/otlp';
import { CliError, printResult } from '../output';

function describe(spans: SpanExplanation[]): string {
  return spans
    .map((s) => {
      const fields = Object.entries({ ...s.span, ...Object.fromEntries(Object.entries(s.trace).map(([k, v]) => [`trace.${k}`, v])) })
        .map(([name, f]) => `  ${name} = ${JSON.stringify(f.value).slice(0, 120)}  ← ${f.from.join(', ') || '(no attribute)'} [${f.rule}]`)
        .join('\n');
      return `span ${s.spanId} ${JSON.stringify(s.name)} (trace ${s.traceId})\n${fields}\n  unused: ${s.unused.join(', ') || '(none)'}`;
    })
    .join('\n\n');
}

/** `spanlog otlp explain FILE`: the conversion's explanation of an export, offline (what `?explain=true` answers). */
export function registerOtlpCommands(program: Command): void {
  const otlp = program.command('otlp').description('OTLP/JSON exports');
  otlp
    .command('explain <file>')
    .description(
      'show, per span, each field with its value and the attribute it came from, and the attributes no rule used (reads the file; sends nothing)',
    )
    .option('--json', 'one JSON document on stdout')
    .action(async (file: string, opts: { json?: boolean }) => {
      const bytes = await readFile(file).catch((err: Error) => {
        throw new CliError(`cannot read ${file}: ${err.message}`);
      });
      if (jsonDepthExceeds(bytes, MAX_JSON_DEPTH)) throw new CliError(`${file}: nests deeper than ${MAX_JSON_DEPTH} levels`);
      let body: unknown;
      try {
        body = parseJsonSafely(bytes.toString('utf8'), 'error');
      } catch (err) {
        throw new CliError(`${file} is not JSON: ${(err as Error).message}`);
      }
      try {
        validateOtlpRequest(body);
      } catch (err) {
        throw new CliError(`${file}: ${(err as Error).message}`);
      }
      const result = explainOtlpRequest(body as ExportTraceServiceRequest);
      printResult(result, opts.json === true, () => describe(result.spans));
    });
}
