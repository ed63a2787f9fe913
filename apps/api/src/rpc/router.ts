import type { EvaluatorTestService } from '../evaluators/evaluator-test.service';
import { costRouters } from '../costs/costs.router';
import type { CostsService } from '../costs/costs.service';
import type { DatasetEditsService } from '../datasets/dataset-edits.service';
import type { DatasetReadsService } from '../datasets/dataset-reads.service';
import { datasetRouters } from '../datasets/datasets.router';
import { evaluatorRouters } from '../evaluators/evaluators.router';
import type { EvaluatorsService } from '../evaluators/evaluators.service';
import { llmConnectionRouters } from '../llm-connections/llm-connections.router';
import type { LlmConnectionsService } from '../llm-connections/llm-connections.service';
import { modelRouters } from '../models/models.router';
import type { ModelsService } from '../models/models.service';
import { monitorRouters } from '../monitors/monitors.router';
import type { MonitorsService } from '../monitors/monitors.service';
import type { PromptReadsService } from '../prompts/prompt-reads.service';
import { promptRouters } from '../prompts/prompts.router';
import type { RpcCallLimiter } from '../rate-limit/rpc-call-limiter';
import { annotationQueueRouters } from '../scores/annotation-queues.router';
import type { AnnotationQueuesService } from '../scores/annotation-queues.service';
import type { HandScoresService } from '../scores/hand-scores.service';
import type { ScoreConfigsService } from '../scores/score-configs.service';
import { scoreRouters } from '../scores/scores.router';
import { statsRouters } from '../stats/stats.router';
import type { StatsService } from '../stats/stats.service';
import { tenancyRouters } from '../tenancy/tenancy.router';
import type { TenancyService } from '../tenancy/tenancy.service';
import type { TraceGroupReadsService } from '../trace-groups/trace-group-reads.service';
import { traceGroupRouters } from '../trace-groups/trace-groups.router';
import type { TraceReadsService } from '../traces/trace-reads.service';
import { traceRouters } from '../traces/traces.router';
import { rpcProcedures, router } from './procedures';

export type { RpcContext } from './procedures';

/** The services behind the procedures, one per area. */
export interface RpcServices {
  tenancy: TenancyService;
  evaluators: EvaluatorsService;
  evaluatorTests: EvaluatorTestService;
  llmConnections: LlmConnectionsService;
  traces: TraceReadsService;
  traceGroups: TraceGroupReadsService;
  prompts: PromptReadsService;
  stats: StatsService;
  costs: CostsService;
  monitors: MonitorsService;
  datasets: DatasetReadsService;
  datasetEdits: DatasetEditsService;
  models: ModelsService;
  scoreConfigs: ScoreConfigsService;
  handScores: HandScoresService;
  annotationQueues: AnnotationQueuesService;
  /** Counts the heavy calls of each session (RPC_LIMITS). */
  limiter: RpcCallLimiter;
}

/** The dashboard RPC (CONTRACT "Auth and the dashboard RPC"): each area's router part, every procedure session-authenticated. */
export function buildRouter({ limiter, ...services }: RpcServices) {
  const procedures = rpcProcedures(limiter);
  return router({
    ...tenancyRouters(services.tenancy, procedures),
    ...evaluatorRouters(services.evaluators, procedures, services.evaluatorTests),
    ...llmConnectionRouters(services.llmConnections, procedures),
    ...traceRouters(services.traces, procedures),
    ...traceGroupRouters(services.traceGroups, procedures),
    ...statsRouters(services.stats, procedures),
    ...costRouters(services.costs, procedures),
    ...monitorRouters(services.monitors, procedures),
    ...modelRouters(services.models, procedures),
    ...promptRouters(services.prompts, procedures),
    ...datasetRouters(services.datasets, services.datasetEdits, procedures),
    ...scoreRouters(services.scoreConfigs, services.handScores, procedures),
    ...annotationQueueRouters(services.annotationQueues, procedures),
  });
}

export type AppRouter = ReturnType<typeof buildRouter>;
