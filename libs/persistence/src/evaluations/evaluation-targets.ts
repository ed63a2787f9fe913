import type { DataSource } from 'typeorm';
import type { EvaluationTarget, SpanTarget } from '@app/domain';
import { TraceEvaluations } from './trace-evaluations';

/**
 * What an evaluator reads of a span or a trace (its `EvaluationTarget`), for a test run
 * (`evaluator.test`): plain queries, no access rules. A trace is read as a trace job reads it.
 */
export class EvaluationTargets {
  constructor(private readonly db: DataSource) {}

  /** The span `spanId` of the project, or null. */
  async span(projectId: string, spanId: string): Promise<SpanTarget | null> {
    const [row]: {
      trace_id: string;
      id: string;
      input: SpanTarget['input'];
      output: SpanTarget['output'];
      metadata: SpanTarget['metadata'];
    }[] = await this.db.query(
      'SELECT trace_id, id, input, output, metadata FROM spans WHERE project_id = $1 AND id = $2 AND trace_id IS NOT NULL',
      [projectId, spanId],
    );
    return row
      ? { kind: 'span', traceId: row.trace_id, spanId: row.id, input: row.input, output: row.output, metadata: row.metadata }
      : null;
  }

  /** The first trace of the project among `candidates` (the UUIDs a client's trace id may stand for), or null. */
  async trace(projectId: string, candidates: string[]): Promise<EvaluationTarget | null> {
    const [row]: { id: string }[] = await this.db.query(
      'SELECT id FROM traces WHERE project_id = $1 AND id = ANY($2::uuid[]) ORDER BY array_position($2::uuid[], id) LIMIT 1',
      [projectId, candidates],
    );
    const trace = row && (await new TraceEvaluations(this.db.manager).readTrace(projectId, row.id));
    return trace ? { kind: 'trace', trace } : null;
  }
}
