import type { InsertFigures, RowShape } from './limits/postgres-insert';
import type { PublishFigures } from './limits/jetstream-publish';
import type { LoadFigures } from './load';
import type { BurstFigures } from './stages/burst';
import type { EndToEndFigures } from './stages/end-to-end';
import type { ProjectionFigures } from './stages/projection';
import type { RebuildFigures } from './stages/rebuild';
import type { RouteModelFigures } from './stages/route-model';

/** The targets of the issue that asked for this bench: shares of the machine's limits. */
export const TARGETS = {
  /** API acceptance against the bare-Fastify parse rate. */
  acceptanceToFastify: 0.4,
  /** Rows made visible by the projection against the fat raw insert (our own rows; issue 14's measure, kept for history). */
  rowsVisibleToRawInsert: 0.6,
  /** Rows made visible by the projection against the lean raw upsert of the same spans: the machine's limit for the work (issue 25). */
  rowsVisibleToLeanInsert: 0.5,
  /** Seconds after a 10 s burst's end until everything it acknowledged can be read (at most). */
  burstVisibleS: 10,
  /** End-to-end visibility at half the pipeline's maximum, p99, in ms (at most). */
  endToEndP99Ms: 1_000,
} as const;

/** A figure that must stay at or below a bound; a figure never reached (null) does not meet it. */
export interface Bound {
  value: number | null;
  atMost: number;
  met: boolean;
}

export interface Ratio {
  value: number;
  target: number;
  met: boolean;
}

/** What `bench/results/latest.json` holds: one run, every figure with the conditions it was measured under. */
export interface BenchResults {
  startedAt: string;
  durationS: number;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryGb: number;
    node: string;
    nats: string;
    postgres: string;
    /** 1-minute load averages: other work on the machine shows here. */
    loadAvgAtStart: number;
    loadAvgAtEnd: number;
  };
  settings: {
    concurrency: number[];
    secondsPerLevel: number;
    backlogSpans: number;
    endToEndSeconds: number;
    burstSeconds: number;
    logLevel: string;
  };
  payload: {
    otlp: { spans: number; bytes: number };
    native: { events: number; bytes: number };
  };
  limits: {
    fastifyParse: LoadFigures[];
    jetstreamPublish: PublishFigures;
    /** One entry per row shape and way of passing many rows; the fastest of a shape is its limit. */
    postgresInsert: InsertFigures[];
  };
  acceptance: {
    /** With the processor consuming meanwhile, as in production: the figure the target is about. */
    otlp: LoadFigures[];
    native: LoadFigures[];
    /** With the processor stopped: what the API alone takes on this machine. */
    otlpProcessorPaused: LoadFigures[];
    /** Messages still unapplied after each series, purged so the next one starts clean. */
    purged: { otlp: number; native: number; otlpProcessorPaused: number };
  };
  /** `underLoadSpansPerS`: rows made visible during the OTLP acceptance series, beside an API under full load. */
  projection: ProjectionFigures & { underLoadSpansPerS: number };
  endToEnd: EndToEndFigures & { basis: string };
  burst: BurstFigures;
  rebuild: RebuildFigures;
  routeModel: RouteModelFigures;
  /** Messages the processor dead-lettered during the run: a correct run has none. */
  deadLettered: number;
  /** Stages whose accepted spans are not all rows exactly once; the run fails when there is any. */
  failures: string[];
  ratios: {
    acceptanceToFastify: Ratio;
    /** For the diagnosis: the same with the processor paused. */
    acceptancePausedToFastify: Ratio;
    /** The drain against the fastest lean upsert of the same spans: the machine's limit for the work. */
    rowsVisibleToLeanInsert: Ratio;
    /** The drain against the fastest fat insert of our own rows (history). */
    rowsVisibleToRawInsert: Ratio;
    /** The same against the fat `unnest` insert alone, the measure issue 14 states its figures in. */
    rowsVisibleToUnnestInsert: Ratio;
  };
  bounds: {
    /** End-to-end visibility p99 at half the pipeline's maximum, ms. */
    endToEndP99Ms: Bound;
    /** Seconds from the burst's end until every span it acknowledged is readable. */
    burstVisibleS: Bound;
  };
}

export const best = (figures: LoadFigures[]): LoadFigures => figures.reduce((a, b) => (b.itemsPerS > a.itemsPerS ? b : a));

/** The fastest insert of one row shape; `fat` by default, the reference of the figures before issue 25. */
export const fastestInsert = (figures: InsertFigures[], shape: RowShape = 'fat'): InsertFigures =>
  figures.filter((f) => f.shape === shape).reduce((a, b) => (b.rowsPerS > a.rowsPerS ? b : a));

export const unnestInsert = (figures: InsertFigures[]): InsertFigures =>
  figures.find((f) => f.shape === 'fat' && f.method === 'unnest') ?? fastestInsert(figures);

export const bound = (value: number | null, atMost: number): Bound => ({ value, atMost, met: value !== null && value <= atMost });

export const ratio = (value: number, target: number): Ratio => ({ value, target, met: value >= target });
