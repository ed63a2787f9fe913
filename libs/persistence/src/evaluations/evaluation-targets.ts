import type { DataSource } from 'typeorm';
import type { EvaluationTarget } from '@app/domain';

/**
 * What an evaluator reads of a span or a trace (its `EvaluationTarget`), for a test run
 * (`evaluator.test`): plain queries, no access rules. No dataset exists yet, so no expected output.
 */
export class EvaluationTargets {
  constructor(private readonly db: DataSource) {}

  /** The span `spanId` of the project, or null. */
  async span(projectId: string, spanId: string): Promise<EvaluationTarget | null> {
    const [row]: {
      trace_id: string;
      id: string;
      input: EvaluationTarget['input'];
      output: EvaluationTarget['output'];
      metadata: EvaluationTarget['metadata'];
    }[] = await this.db.query(
      'SELECT trace_id, id, input, output, metadata FROM spans WHERE project_id = $1 AND id = $2 AND trace_id IS NOT NULL',
      [projectId, spanId],
    );
    return row
      ? { traceId: row.trace_id, spanId: row.id, input: row.input, output: row.output, metadata: row.metadata, expectedOutput: null }
      : null;
  }

  /** The first trace of the project among `candidates` (the UUIDs a client's trace id may stand for), or null. */
  async trace(projectId: string, candidates: string[]): Promise<EvaluationTarget | null> {
    const [row]: {
      id: string;
      input: EvaluationTarget['input'];
      output: EvaluationTarget['output'];
      metadata: EvaluationTarget['metadata'];
    }[] = await this.db.query(
      'SELECT id, input, output, metadata FROM traces WHERE project_id = $1 AND id = ANY($2::uuid[]) ORDER BY array_position($2::uuid[], id) LIMIT 1',
      [projectId, candidates],
    );
    return row
      ? { traceId: row.id, spanId: null, input: row.input, output: row.output, metadata: row.metadata, expectedOutput: null }
      : null;
  }
}
