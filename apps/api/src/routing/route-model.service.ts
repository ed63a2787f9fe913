import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import {
  EVALUATOR_SCORE_SOURCE,
  type ObservedModel,
  PAYLOAD_LIMITS,
  type RoutingDecision,
  routeModel,
  validateRouteModelRequest,
} from '@app/domain';
import { type ModelWindowStats, readModelStats } from '@app/projections';
import { assertBodyWithin } from '../http/body-limit';
import { READ_DB } from '../infrastructure/read-db';

const HOUR_MS = 3_600_000;

/** POST /api/v1/route-model (CONTRACT "Model routing"): the project's own model stats, ranked. */
@Injectable()
export class RouteModelService {
  constructor(@Inject(READ_DB) private readonly ds: DataSource) {}

  async route(projectId: string, raw: Buffer | undefined, body: unknown, nowMs: number): Promise<RoutingDecision> {
    assertBodyWithin(raw, PAYLOAD_LIMITS.routeModel);
    const request = validateRouteModelRequest(body);
    // The hours the window overlaps: stats are kept per hour.
    const since = new Date(Math.floor((nowMs - (request.windowHours ?? 24) * HOUR_MS) / HOUR_MS) * HOUR_MS);
    const stats = await readModelStats(this.ds, projectId, request.candidates, since);
    const observed = new Map([...stats].map(([model, s]) => [model, observedModel(s, request.scoreName)]));
    return routeModel(request, observed);
  }
}

/** Quality is the named score when one is given, else every evaluator's results (CONTRACT). */
function observedModel(s: ModelWindowStats, scoreName: string | undefined): ObservedModel {
  const measuring = s.scores.filter((c) => (scoreName === undefined ? c.source === EVALUATOR_SCORE_SOURCE : c.name === scoreName));
  const sum = (pick: (c: ModelWindowStats['scores'][number]) => number) => measuring.reduce((n, c) => n + pick(c), 0);
  return {
    calls: s.calls,
    errors: s.errors,
    latency: s.latency,
    costedCalls: s.costedCalls,
    costUsd: s.costUsd,
    promptTokens: s.promptTokens,
    completionTokens: s.completionTokens,
    quality: {
      scores: sum((c) => c.scores),
      numericScores: sum((c) => c.numericScores),
      valueSum: sum((c) => c.valueSum),
      judged: sum((c) => c.judged),
      passed: sum((c) => c.passed),
    },
  };
}
