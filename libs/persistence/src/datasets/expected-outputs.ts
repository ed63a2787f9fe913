import type { DataSource, EntityManager } from 'typeorm';
import type { JsonValue } from '@app/domain';

/**
 * The run item that puts a span or trace in an experiment: for a span, the one linking that
 * span, else one of its trace (Langfuse's experiments link the item's root span, and a judge
 * may score a span under it); for a trace, one linking the trace as a whole, else one of its
 * spans. The newest link wins among equals.
 */
const LINKED_ITEM = `
  SELECT ri.project_id, ri.dataset_item_id, ri.created_at FROM dataset_run_items ri
   WHERE ri.project_id = $1 AND ri.trace_id = $2
   ORDER BY ri.span_id IS NOT DISTINCT FROM $3::uuid DESC, ri.span_id IS NULL DESC, ri.created_at DESC, ri.id
   LIMIT 1`;

/**
 * The item as the experiment read it: its newest version when the run item was linked, or, if
 * it had none then, as it is now.
 */
const EXPECTED_OUTPUT = `
  SELECT v.expected_output FROM (${LINKED_ITEM}) ri
   CROSS JOIN LATERAL (
     SELECT v.expected_output FROM dataset_item_versions v
      WHERE v.project_id = ri.project_id AND v.item_id = ri.dataset_item_id
      ORDER BY v.valid_from <= ri.created_at DESC, v.valid_from DESC LIMIT 1) v`;

/**
 * A judge's `{{expectedOutput}}` (issue 29): the expected output of the dataset item a run item
 * links its target to. Read when the evaluation runs, so a run item that arrived after its span
 * but before the span's job ran is seen; one arriving later is not (a trace judge, which waits
 * for the trace to go quiet, normally sees it).
 */
export class ExpectedOutputs {
  constructor(private readonly db: DataSource | EntityManager) {}

  /** The linked item's expected output; null when no run item links the target, or the item expects nothing. */
  async of(projectId: string, target: { traceId: string; spanId: string | null }): Promise<JsonValue | null> {
    const [row]: { expected_output: JsonValue | null }[] = await this.db.query(EXPECTED_OUTPUT, [projectId, target.traceId, target.spanId]);
    return row?.expected_output ?? null;
  }
}
