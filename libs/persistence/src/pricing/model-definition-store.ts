import type { DataSource, EntityManager } from 'typeorm';
import { type ModelDefinition, type ModelDefinitionFields, type PriceTier, type Prices, changedPatterns, refuseOverlap } from '@app/domain';
import { returnedRows } from '../query-result';

interface DefinitionRow {
  id: string;
  project_id: string;
  model_name: string;
  match_pattern: string;
  start_date: Date;
  unit: 'TOKENS';
  prices: Prices;
  tiers: PriceTier[];
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, project_id, model_name, match_pattern, start_date, unit, prices, tiers, created_at, updated_at';

const toDefinition = (r: DefinitionRow): ModelDefinition => ({
  id: r.id,
  projectId: r.project_id,
  modelName: r.model_name,
  matchPattern: r.match_pattern,
  startDate: r.start_date.toISOString(),
  unit: r.unit,
  prices: r.prices,
  ...(r.tiers.length ? { tiers: r.tiers } : {}),
  createdAt: r.created_at.toISOString(),
  updatedAt: r.updated_at.toISOString(),
});

/** A project's cost recomputation as stored: the last one, running or done. */
export interface CostRecomputation {
  projectId: string;
  /** The price version it recomputes to. */
  priceVersion: number;
  status: 'running' | 'done';
  /** The spans with usage it has to look at; null until its first step counted them. */
  spansTotal: number | null;
  spansDone: number;
  /** The spans whose cost it changed. */
  spansRecosted: number;
  startedAt: string;
  finishedAt: string | null;
}

interface RecomputationRow {
  project_id: string;
  price_version: string;
  status: 'running' | 'done';
  match_patterns: string[] | null;
  models: string[] | null;
  after_model: string | null;
  after_start_time: string | null;
  after_span_id: string | null;
  spans_total: string | null;
  spans_done: string;
  spans_recosted: string;
  started_at: Date;
  finished_at: Date | null;
}

export const toRecomputation = (r: RecomputationRow): CostRecomputation => ({
  projectId: r.project_id,
  priceVersion: Number(r.price_version),
  status: r.status,
  spansTotal: r.spans_total === null ? null : Number(r.spans_total),
  spansDone: Number(r.spans_done),
  spansRecosted: Number(r.spans_recosted),
  startedAt: r.started_at.toISOString(),
  finishedAt: r.finished_at?.toISOString() ?? null,
});

/** Where a recomputation is: the last span it looked at, in the order of model, start and id. */
export interface RecomputationCursor {
  model: string;
  /** The span's start as Postgres writes it (`timestamptz::text`): exact to the microsecond, which a Date is not. */
  startTime: string;
  spanId: string;
}

/** A running recomputation with what it looks at and where it is. */
export interface RecomputationStep extends CostRecomputation {
  /** The patterns of the definitions changed since it started (`changedPatterns`); null: every model. */
  matchPatterns: string[] | null;
  /** The models it looks at, fixed by its first step; null before it. */
  models: string[] | null;
  after: RecomputationCursor | null;
}

/** The project's prices changed after the batch was priced: it must be priced again (a retry prepares it again). */
export class StalePricesError extends Error {}

/** The lock a price change takes exclusively and a telemetry batch shares, per project. */
const PRICE_LOCK = `hashtext('spanlog:prices:' || p)`;
const NOW_MS = `date_trunc('milliseconds', now())`;
/** A recomputation started again from the project's first span; its models are found again by its first step. */
const RESTART = `status = 'running', models = NULL, after_model = NULL, after_start_time = NULL, after_span_id = NULL, spans_total = NULL,
  spans_done = 0, spans_recosted = 0, started_at = ${NOW_MS}, finished_at = NULL`;

/**
 * Project model price definitions, the project's price version and its cost recomputation.
 * Every change of a definition, in one transaction: restarts the project's recomputation from
 * its first span (taking its row first, so a recomputation step, which holds that row, is never
 * waited on while the price lock is held), takes the project's price lock exclusively (waiting
 * for the telemetry batches in flight, which share it), writes, bumps the version and adds the
 * patterns the change touched to those the recomputation looks at (a change while it runs adds
 * to what it has to look at; one after it finished starts from none). A batch
 * priced with an older version is then refused in its transaction (`holdPriceVersions`), so
 * every span written with an old price was committed before the recomputation started.
 */
export class ModelDefinitionStore {
  constructor(private readonly db: DataSource | EntityManager) {}

  async list(projectId: string): Promise<ModelDefinition[]> {
    const rows: DefinitionRow[] = await this.db.query(
      `SELECT ${COLUMNS} FROM model_definitions WHERE project_id = $1 ORDER BY model_name, start_date, id`,
      [projectId],
    );
    return rows.map(toDefinition);
  }

  async get(projectId: string, id: string): Promise<ModelDefinition | null> {
    const [row] = await this.db.query(`SELECT ${COLUMNS} FROM model_definitions WHERE project_id = $1 AND id = $2`, [projectId, id]);
    return row ? toDefinition(row) : null;
  }

  create(projectId: string, fields: ModelDefinitionFields): Promise<ModelDefinition> {
    return this.change(projectId, async (m, others) => {
      refuseOverlap(fields, others);
      const [row] = await m.query(
        `INSERT INTO model_definitions (project_id, model_name, match_pattern, start_date, unit, prices, tiers, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, ${NOW_MS}, ${NOW_MS}) RETURNING ${COLUMNS}`,
        [projectId, ...fieldParams(fields)],
      );
      return toDefinition(row);
    });
  }

  update(projectId: string, id: string, fields: ModelDefinitionFields): Promise<ModelDefinition | null> {
    return this.change(projectId, async (m, others) => {
      if (!others.some((o) => o.id === id)) return null;
      refuseOverlap(fields, others, id);
      const [row] = returnedRows<DefinitionRow>(
        await m.query(
          `UPDATE model_definitions SET model_name = $3, match_pattern = $4, start_date = $5, unit = $6, prices = $7, tiers = $8, updated_at = ${NOW_MS}
            WHERE project_id = $1 AND id = $2 RETURNING ${COLUMNS}`,
          [projectId, id, ...fieldParams(fields)],
        ),
      );
      return toDefinition(row);
    });
  }

  delete(projectId: string, id: string): Promise<boolean> {
    return this.change(projectId, async (m, others) => {
      if (!others.some((o) => o.id === id)) return false;
      await m.query('DELETE FROM model_definitions WHERE project_id = $1 AND id = $2', [projectId, id]);
      return true;
    });
  }

  /** Runs a change as the class comment says; a change that finds nothing to change (null, false) rolls back. */
  private change<T>(projectId: string, write: (m: EntityManager, current: ModelDefinition[]) => Promise<T>): Promise<T> {
    return this.db
      .transaction(async (m) => {
        await m.query(
          `INSERT INTO cost_recomputations AS c (project_id, price_version, status, match_patterns, started_at) VALUES ($1, 0, 'running', '{}', ${NOW_MS})
         ON CONFLICT (project_id) DO UPDATE SET ${RESTART}, match_patterns = CASE WHEN c.status = 'running' THEN c.match_patterns ELSE '{}' END`,
          [projectId],
        );
        await m.query(`SELECT pg_advisory_xact_lock(${PRICE_LOCK}) FROM (SELECT $1::text AS p) s`, [projectId]);
        const store = new ModelDefinitionStore(m);
        const before = await store.list(projectId);
        const result = await write(m, before);
        if (result === null || result === false) throw new NothingChanged(result);
        await m.query(
          `WITH v AS (
           INSERT INTO model_price_versions (project_id, version) VALUES ($1, 1)
           ON CONFLICT (project_id) DO UPDATE SET version = model_price_versions.version + 1 RETURNING version
         )
         UPDATE cost_recomputations SET price_version = (SELECT version FROM v),
                match_patterns = CASE WHEN match_patterns IS NOT NULL THEN ARRAY(SELECT DISTINCT unnest(match_patterns || $2::text[]) ORDER BY 1) END
          WHERE project_id = $1`,
          [projectId, changedPatterns(before, await store.list(projectId))],
        );
        return result;
      })
      .catch((err: unknown) => {
        if (err instanceof NothingChanged) return err.result as T;
        throw err;
      });
  }

  /** The price version of each project that has one (0 for the others: only the built-ins). */
  async priceVersions(projectIds: readonly string[]): Promise<Map<string, number>> {
    const rows: { project_id: string; version: string }[] = await this.db.query(
      'SELECT project_id, version FROM model_price_versions WHERE project_id = ANY($1::uuid[])',
      [projectIds],
    );
    return new Map(projectIds.map((id) => [id, Number(rows.find((r) => r.project_id === id)?.version ?? 0)]));
  }

  /** The price version of every project with definitions now or before. */
  async allPriceVersions(): Promise<Map<string, number>> {
    const rows: { project_id: string; version: string }[] = await this.db.query('SELECT project_id, version FROM model_price_versions');
    return new Map(rows.map((r) => [r.project_id, Number(r.version)]));
  }

  /**
   * Starts the projects' recomputations again from their first span, at their current price
   * version: for a telemetry rebuild's swap, whose new tables hold costs priced while the
   * prices changed. Every project with a price version has a recomputation (a change made both).
   */
  async restartRecomputations(projectIds: readonly string[]): Promise<void> {
    if (!projectIds.length) return;
    // Which definitions changed is not known: every model is looked at.
    await this.db.query(
      `UPDATE cost_recomputations c SET ${RESTART}, match_patterns = NULL, price_version = v.version
         FROM model_price_versions v WHERE v.project_id = c.project_id AND c.project_id = ANY($1::uuid[])`,
      [projectIds],
    );
  }

  /**
   * In a telemetry batch's transaction: shares each project's price lock until it commits, so no
   * price change commits in between, and refuses the batch (`StalePricesError`) when a project's
   * version is no longer the one it was priced with.
   */
  async holdPriceVersions(pricedWith: ReadonlyMap<string, number>): Promise<void> {
    const projects = [...pricedWith.keys()].sort();
    if (!projects.length) return;
    await this.db.query(`SELECT pg_advisory_xact_lock_shared(${PRICE_LOCK}) FROM (SELECT unnest($1::text[]) AS p ORDER BY 1) s`, [
      projects,
    ]);
    const current = await this.priceVersions(projects);
    const stale = projects.filter((p) => current.get(p) !== pricedWith.get(p));
    if (stale.length) throw new StalePricesError(`the prices of project ${stale.join(', ')} changed since the batch was priced`);
  }

  async recomputation(projectId: string): Promise<CostRecomputation | null> {
    const [row] = await this.db.query('SELECT * FROM cost_recomputations WHERE project_id = $1', [projectId]);
    return row ? toRecomputation(row) : null;
  }

  /** In a recomputation step's transaction: a running recomputation no other step holds, locked until the step commits. */
  async claimRecomputation(): Promise<RecomputationStep | null> {
    const [row]: RecomputationRow[] = await this.db.query(
      `SELECT project_id, price_version, status, match_patterns, models, after_model, after_start_time::text AS after_start_time, after_span_id,
              spans_total, spans_done, spans_recosted, started_at, finished_at
         FROM cost_recomputations WHERE status = 'running' ORDER BY started_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
    );
    if (!row) return null;
    const { after_model: model, after_start_time: startTime, after_span_id: spanId } = row;
    return {
      ...toRecomputation(row),
      matchPatterns: row.match_patterns,
      models: row.models,
      after: model !== null && startTime !== null && spanId !== null ? { model, startTime, spanId } : null,
    };
  }

  /** Records a step's progress, in its transaction; `done` when it looked at the last span of its last model. */
  async advanceRecomputation(
    projectId: string,
    step: { models: string[]; after: RecomputationCursor | null; total: number; looked: number; recosted: number; done: boolean },
  ): Promise<void> {
    await this.db.query(
      `UPDATE cost_recomputations SET models = $2, after_model = $3, after_start_time = $4, after_span_id = $5, spans_total = $6,
              spans_done = spans_done + $7, spans_recosted = spans_recosted + $8,
              status = CASE WHEN $9 THEN 'done' ELSE 'running' END, finished_at = CASE WHEN $9 THEN ${NOW_MS} END
        WHERE project_id = $1`,
      [
        projectId,
        step.models,
        step.after?.model ?? null,
        step.after?.startTime ?? null,
        step.after?.spanId ?? null,
        step.total,
        step.looked,
        step.recosted,
        step.done,
      ],
    );
  }

  /** The spans left to look at by the running recomputations, for the progress gauge. */
  async spansRemaining(): Promise<number> {
    const [{ n }] = await this.db.query(
      `SELECT coalesce(sum(greatest(coalesce(spans_total, 0) - spans_done, 0)), 0)::bigint AS n FROM cost_recomputations WHERE status = 'running'`,
    );
    return Number(n);
  }
}

/** Rolls a change back that found nothing to change, carrying its answer out of the transaction. */
class NothingChanged extends Error {
  constructor(readonly result: unknown) {
    super('nothing changed');
  }
}

const fieldParams = (f: ModelDefinitionFields) => [
  f.modelName,
  f.matchPattern,
  f.startDate,
  f.unit,
  JSON.stringify(f.prices),
  JSON.stringify(f.tiers),
];
