import { validateModelDefinition } from '@app/domain';
import { ModelDefinitionStore, createDataSource } from '@app/persistence';
import { recomputeCosts } from '@app/projections';

export interface RecomputeFigures {
  spans: number;
  recosted: number;
  seconds: number;
  spansPerS: number;
  /** First, a definition of a model no span has: what a change that affects nothing costs. */
  unusedModel: { spans: number; seconds: number };
}

/**
 * A project price definition for the payload's model, created over the spans already in the
 * tables, and the recomputation it starts run to the end in this process (the processor
 * stopped, so nothing else takes its steps): how fast past costs follow a price change.
 * Before it, the same for a definition of a model no span has (created and deleted again).
 * Throws unless every span of the model has the new price.
 */
export async function measureRecompute(databaseUrl: string, projectId: string): Promise<RecomputeFigures> {
  const ds = createDataSource({ url: databaseUrl, poolSize: 2, applicationName: 'spanlog-bench' });
  await ds.initialize();
  try {
    const store = new ModelDefinitionStore(ds);
    const unused = await store.create(
      projectId,
      validateModelDefinition({ modelName: 'bench-unused', matchPattern: '^bench-unused$', prices: { input: 1e-6 } }),
    );
    const unusedStarted = performance.now();
    const unusedSpans = await recomputeCosts(ds);
    const unusedModel = { spans: unusedSpans, seconds: (performance.now() - unusedStarted) / 1_000 };
    await store.delete(projectId, unused.id);
    await recomputeCosts(ds);
    const definition = await store.create(
      projectId,
      validateModelDefinition({ modelName: 'gpt-4o-mini', matchPattern: '^gpt-4o-mini$', prices: { input: 1e-6, output: 4e-6 } }),
    );
    const started = performance.now();
    let recosted = 0;
    const spans = await recomputeCosts(ds, undefined, (step) => (recosted += step.recosted));
    const seconds = (performance.now() - started) / 1_000;
    const [{ n }] = await ds.query(
      `SELECT count(*)::int AS n FROM spans WHERE project_id = $1 AND model = 'gpt-4o-mini' AND cost_source IS DISTINCT FROM $2`,
      [projectId, `price:${definition.id}`],
    );
    if (n > 0) throw new Error(`recompute: ${n} spans of gpt-4o-mini kept another price`);
    return { spans, recosted, seconds, spansPerS: spans / seconds, unusedModel };
  } finally {
    await ds.destroy();
  }
}
