import { InitialSchema1763800000000 } from './1763800000000-InitialSchema';
import { SessionsAndAudit1763900000000 } from './1763900000000-SessionsAndAudit';
import { UsageCounters1764000000000 } from './1764000000000-UsageCounters';
import { TraceDeletions1764100000000 } from './1764100000000-TraceDeletions';
import { ApiKeyChanges1764200000000 } from './1764200000000-ApiKeyChanges';
import { CompactVersions1764300000000 } from './1764300000000-CompactVersions';
import { Evaluators1764400000000 } from './1764400000000-Evaluators';
import { AppliedSequences1764500000000 } from './1764500000000-AppliedSequences';
import { ModelStats1764510000000 } from './1764510000000-ModelStats';
import { ProjectionVersions1764520000000 } from './1764520000000-ProjectionVersions';
import { LoginFailures1764700000000 } from './1764700000000-LoginFailures';
import { SecurityLog1764710000000 } from './1764710000000-SecurityLog';
import { ApiKeyCreator1764720000000 } from './1764720000000-ApiKeyCreator';
import { EvalJobDeferral1764800000000 } from './1764800000000-EvalJobDeferral';
import { EvaluatorSecrets1764810000000 } from './1764810000000-EvaluatorSecrets';
import { PromptTemplates1764900000000 } from './1764900000000-PromptTemplates';
import { AuditApiKeyActor1764900000001 } from './1764900000001-AuditApiKeyActor';
import { OverviewStats1765000000000 } from './1765000000000-OverviewStats';
import { Monitors1765000000001 } from './1765000000001-Monitors';
import { StatsMarkTimes1765000000002 } from './1765000000002-StatsMarkTimes';
import { MonitorAuditOutbox1765000000003 } from './1765000000003-MonitorAuditOutbox';
import { StateChangeAuditOutbox1765000000004 } from './1765000000004-StateChangeAuditOutbox';
import { DropSharedRebuildSchema1765000000005 } from './1765000000005-DropSharedRebuildSchema';
import { TracePageIndex1766000024100 } from './1766000024100-TracePageIndex';
import { ApiKeyCreationNotifies1766100000000 } from './1766100000000-ApiKeyCreationNotifies';
import { SpanAttributeCopies1766300000000 } from './1766300000000-SpanAttributeCopies';
import { SessionUserIndexes1766400000000 } from './1766400000000-SessionUserIndexes';
import { SpanOperation1766600000000 } from './1766600000000-SpanOperation';
import { TraceNameLowerIndex1766700000000 } from './1766700000000-TraceNameLowerIndex';
import { SpanStatsOperation1766800000000 } from './1766800000000-SpanStatsOperation';
import { MonitorOperationFilter1766800000001 } from './1766800000001-MonitorOperationFilter';
import { SpanUsageDetails1766950000000 } from './1766950000000-SpanUsageDetails';
import { SpanCostSource1766960000000 } from './1766960000000-SpanCostSource';
import { ModelDefinitions1767010000000 } from './1767010000000-ModelDefinitions';
import { UnpricedUsage1767020000000 } from './1767020000000-UnpricedUsage';
import { LlmJudges1767030000000 } from './1767030000000-LlmJudges';
import { TraceEvaluations1767040000000 } from './1767040000000-TraceEvaluations';
import { HandScores1767050000000 } from './1767050000000-HandScores';
import { Datasets1767060000000 } from './1767060000000-Datasets';
import { AnnotationQueues1767080000000 } from './1767080000000-AnnotationQueues';
import { DatasetRunScores1767090000000 } from './1767090000000-DatasetRunScores';
import { RecomputeAffectedModels1767100000000 } from './1767100000000-RecomputeAffectedModels';
import { RateLimitLeases1767120000000 } from './1767120000000-RateLimitLeases';
import { ScheduledJobRuns1767120000001 } from './1767120000001-ScheduledJobRuns';
import { TraceNameStatistics1767140000000 } from './1767140000000-TraceNameStatistics';
import { OverviewHourlyStats1767150000000 } from './1767150000000-OverviewHourlyStats';
import { ScoreSpanIndex1767160000000 } from './1767160000000-ScoreSpanIndex';
import { ScoreNumberStatistics1767180000000 } from './1767180000000-ScoreNumberStatistics';
import { UnsetFieldsUnnamed1767200000000 } from './1767200000000-UnsetFieldsUnnamed';

/** Every migration in order; the data source takes classes, so tests and builds share one list. */
export const MIGRATIONS = [
  InitialSchema1763800000000,
  SessionsAndAudit1763900000000,
  UsageCounters1764000000000,
  TraceDeletions1764100000000,
  ApiKeyChanges1764200000000,
  CompactVersions1764300000000,
  Evaluators1764400000000,
  AppliedSequences1764500000000,
  ModelStats1764510000000,
  ProjectionVersions1764520000000,
  LoginFailures1764700000000,
  SecurityLog1764710000000,
  ApiKeyCreator1764720000000,
  EvalJobDeferral1764800000000,
  EvaluatorSecrets1764810000000,
  PromptTemplates1764900000000,
  AuditApiKeyActor1764900000001,
  OverviewStats1765000000000,
  Monitors1765000000001,
  StatsMarkTimes1765000000002,
  MonitorAuditOutbox1765000000003,
  StateChangeAuditOutbox1765000000004,
  DropSharedRebuildSchema1765000000005,
  TracePageIndex1766000024100,
  ApiKeyCreationNotifies1766100000000,
  SpanAttributeCopies1766300000000,
  SessionUserIndexes1766400000000,
  SpanOperation1766600000000,
  TraceNameLowerIndex1766700000000,
  SpanStatsOperation1766800000000,
  MonitorOperationFilter1766800000001,
  SpanUsageDetails1766950000000,
  SpanCostSource1766960000000,
  ModelDefinitions1767010000000,
  UnpricedUsage1767020000000,
  LlmJudges1767030000000,
  TraceEvaluations1767040000000,
  HandScores1767050000000,
  Datasets1767060000000,
  AnnotationQueues1767080000000,
  DatasetRunScores1767090000000,
  RecomputeAffectedModels1767100000000,
  RateLimitLeases1767120000000,
  ScheduledJobRuns1767120000001,
  TraceNameStatistics1767140000000,
  OverviewHourlyStats1767150000000,
  ScoreSpanIndex1767160000000,
  ScoreNumberStatistics1767180000000,
  UnsetFieldsUnnamed1767200000000,
];
