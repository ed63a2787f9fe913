import { Readable, pipeline } from 'node:stream';
import { Inject, Injectable } from '@nestjs/common';
import { stringify } from 'csv-stringify';
import type { FastifyReply } from 'fastify';
import type { Logger } from 'pino';
import { LOGGER } from '@app/config';
import { EXPORT_CSV_COLUMNS, EXPORT_LIMITS, type ExportFormat, exportCsvRow, serviceUnavailable } from '@app/domain';
import type { TraceExportQueryDto } from './trace-query.dto';
import { TracesService } from './traces.service';

/** Bytes of JSONL gathered before a write: one write per span would cost more than the span. */
const WRITE_BYTES = 64 * 1024;

const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = {
  jsonl: 'application/x-ndjson; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

/** How an export ended, as its log line says. */
type Outcome = 'complete' | 'client closed' | 'time limit' | 'failed';

/**
 * GET /api/v1/traces/export (docs/reading.md "Exports"): every trace matching the list's
 * filters as a stream, in memory that does not grow with the export. The stream is pulled: a
 * page of traces is read only once the client has taken what came before (the reply's
 * backpressure), and none once it has gone. At EXPORT_LIMITS.maxDurationMs the stream fails,
 * so the client sees a cut transfer rather than a file that looks complete.
 */
@Injectable()
export class TraceExportService {
  constructor(
    private readonly traces: TracesService,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Answers `reply` with the export: its type, a file name to save it as, then the stream. */
  send(reply: FastifyReply, projectId: string, query: TraceExportQueryDto, reqId: string) {
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    return reply
      .header('Content-Type', EXPORT_CONTENT_TYPES[query.format])
      .header('Content-Disposition', `attachment; filename="traces-${stamp}.${query.format}"`)
      .header('Cache-Control', 'no-store')
      .send(this.stream(projectId, query, reqId));
  }

  stream(projectId: string, { format, include = [], tags, ...filters }: TraceExportQueryDto, reqId: string): Readable {
    const withSpans = include.includes('spans');
    const withScores = include.includes('scores');
    const traces = this.traces;
    const logger = this.logger;
    const deadline = Date.now() + EXPORT_LIMITS.maxDurationMs;

    /** Each matching trace with what it includes, as JSONL text or CSV rows; logs how the export ended. */
    async function* records<T>(encode: (trace: ExportedTrace, projectId: string) => AsyncGenerator<T>): AsyncGenerator<T> {
      let count = 0;
      let outcome: Outcome = 'client closed';
      try {
        for await (const trace of traces.exportTraces(projectId, { ...filters, tags: tags?.split(',') })) {
          if (Date.now() > deadline) {
            outcome = 'time limit';
            throw serviceUnavailable(`export cut after ${EXPORT_LIMITS.maxDurationMs / 1000} seconds; narrow the time range`);
          }
          yield* encode(trace, projectId);
          count++;
        }
        outcome = 'complete';
      } catch (err) {
        if (outcome !== 'time limit') outcome = 'failed';
        throw err;
      } finally {
        logger.info({ reqId, format, include, traces: count, outcome }, 'trace export ended');
      }
    }

    async function* jsonl(trace: ExportedTrace, project: string): AsyncGenerator<string> {
      if (!withSpans && !withScores) {
        yield `${JSON.stringify(trace)}\n`;
        return;
      }
      // The line is written in parts: a trace's spans are never all in memory at once.
      let line = JSON.stringify(trace).slice(0, -1);
      const list = async function* (key: string, items: AsyncGenerator<object>) {
        line += `,"${key}":[`;
        let first = true;
        for await (const item of items) {
          line += (first ? '' : ',') + JSON.stringify(item);
          first = false;
          if (line.length >= WRITE_BYTES) {
            yield line;
            line = '';
          }
        }
        line += ']';
      };
      if (withSpans) yield* list('spans', traces.exportSpans(project, trace.id));
      if (withScores) yield* list('scores', traces.exportScores(project, trace.id));
      yield `${line}}\n`;
    }

    async function* csv(trace: ExportedTrace, project: string): AsyncGenerator<string[]> {
      yield exportCsvRow('trace', { ...trace, traceId: trace.id, cost: trace.totalCost });
      if (withSpans) {
        for await (const s of traces.exportSpans(project, trace.id)) {
          const latencyMs = s.startTime && s.endTime ? Date.parse(s.endTime) - Date.parse(s.startTime) : null;
          yield exportCsvRow('span', { ...s, timestamp: s.startTime, latencyMs });
        }
      }
      if (withScores) for await (const c of traces.exportScores(project, trace.id)) yield exportCsvRow('score', c);
    }

    if (format === 'jsonl') return Readable.from(batched(records(jsonl)), { objectMode: false });
    // A BOM, so that spreadsheet programs read the file as UTF-8; RFC 4180 quoting and CRLF rows by csv-stringify.
    const out = stringify({ header: true, columns: [...EXPORT_CSV_COLUMNS], bom: true, record_delimiter: 'windows' });
    pipeline(Readable.from(records(csv)), out, () => undefined);
    return out;
  }
}

type ExportedTrace = ReturnType<TracesService['exportTraces']> extends AsyncGenerator<infer T> ? T : never;

/** The JSONL text in writes of about WRITE_BYTES. */
async function* batched(parts: AsyncGenerator<string>): AsyncGenerator<string> {
  let pending = '';
  for await (const part of parts) {
    pending += part;
    if (pending.length >= WRITE_BYTES) {
      yield pending;
      pending = '';
    }
  }
  if (pending) yield pending;
}
