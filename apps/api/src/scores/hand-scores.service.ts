import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  ADMIN_ROLES,
  type AuditAction,
  type HandScoreUpsert,
  type ScoreDataType,
  type ScoreConfig,
  type SeqToken,
  SeqTokenCodec,
  hasRole,
  notFound,
  scoreConfigRefusal,
  validationError,
} from '@app/domain';
import { ScoreConfigStore, type ScoreRow, TenancyRepository, TraceQueries } from '@app/persistence';
import { type Actor, AccessService, forbidden } from '../access/access.service';
import { AuditPublisher } from '../audit/audit.publisher';
import { VisibilityService } from '../consistency/visibility.service';
import { IngestService } from '../ingestion/ingest.service';
import type { HandScoreCreateInput, HandScoreIdInput, HandScoreUpdateInput } from '../rpc/rpc.dto';

/** What a change of a hand score answers: the score's id, the token that makes it visible, and whether it already is. */
export interface HandScoreAnswer {
  id: string;
  seq: string;
  visible: boolean;
}

type ScoreAuditAction = Extract<AuditAction, `score.${string}`>;
type ScoreValue = HandScoreUpsert['value'];

/** A BOOLEAN config's score is stored as true/false, even when given as Langfuse's 1/0. */
const storedValue = (value: ScoreValue, dataType: ScoreDataType): ScoreValue =>
  dataType === 'BOOLEAN' && typeof value === 'number' ? value === 1 : value;

/**
 * Scores given by hand in the dashboard (issue 30), on a trace or any of its spans, under a
 * score config: any member of the project's organization gives one; its author, an admin or an
 * owner changes or removes it. Each change is a message on INGEST (`ingest.hand-score/v1`) and
 * an AUDIT event; the answer waits, briefly, until the score reads as changed.
 */
@Injectable()
export class HandScoresService {
  constructor(
    private readonly access: AccessService,
    private readonly configs: ScoreConfigStore,
    private readonly traces: TraceQueries,
    private readonly users: TenancyRepository,
    private readonly ingest: IngestService,
    private readonly visibility: VisibilityService,
    private readonly tokens: SeqTokenCodec,
    private readonly audit: AuditPublisher,
  ) {}

  async create(actor: Actor, requestId: string, input: HandScoreCreateInput): Promise<HandScoreAnswer> {
    const { orgId } = await this.access.projectMembership(actor, input.projectId);
    const config = await this.configs.get(input.projectId, input.configId);
    if (!config) throw notFound(`configId: score config ${input.configId} not found in project ${input.projectId}`);
    if (config.archived) throw validationError(`configId: the score config "${config.name}" is archived; restore it to score with it`);
    refuseMisfit(input.value, config);
    const target = await this.traces.hasTarget(input.projectId, input.traceId, input.spanId);
    if (!target.trace) throw notFound(`traceId: trace ${input.traceId} not found in project ${input.projectId}`);
    if (!target.span) throw notFound(`spanId: span ${input.spanId} is not a span of trace ${input.traceId}`);
    const author = await this.users.user(actor.userId);
    if (!author) throw forbidden('your user no longer exists');
    const score: HandScoreUpsert = {
      op: 'upsert',
      changeId: randomUUID(),
      id: randomUUID(),
      traceId: input.traceId,
      ...(input.spanId !== undefined && { spanId: input.spanId }),
      name: config.name,
      value: storedValue(input.value, config.dataType),
      dataType: config.dataType,
      comment: input.comment ?? '',
      authorUserId: author.id,
      authorEmail: author.email,
    };
    const seq = await this.ingest.ingestHandScore({ orgId, projectId: input.projectId, userId: actor.userId }, requestId, score);
    await this.record(actor, orgId, 'score.created', score);
    return this.answer(score.id, seq);
  }

  async update(actor: Actor, requestId: string, input: HandScoreUpdateInput): Promise<HandScoreAnswer> {
    if (input.value === undefined && input.comment === undefined) throw validationError('nothing to change: give value or comment');
    const { orgId, row } = await this.changeable(actor, input.projectId, input.id, 'change');
    const dataType = row.data_type as ScoreDataType;
    let value = row.value as ScoreValue;
    if (input.value !== undefined) {
      const config = (await this.configs.inForce(input.projectId, [row.name as string])).get(row.name as string);
      if (!config) throw validationError(`value: the score config "${row.name}" is archived or gone, so only the comment can change`);
      refuseMisfit(input.value, config);
      value = storedValue(input.value, dataType);
    }
    const score: HandScoreUpsert = {
      op: 'upsert',
      changeId: randomUUID(),
      id: row.id,
      traceId: row.trace_id as string,
      ...(row.span_id !== null && { spanId: row.span_id }),
      name: row.name as string,
      value,
      dataType,
      comment: input.comment ?? row.comment ?? '',
      authorUserId: row.author_user_id as string,
      authorEmail: row.author_email as string,
    };
    const seq = await this.ingest.ingestHandScore({ orgId, projectId: input.projectId, userId: actor.userId }, requestId, score);
    await this.record(actor, orgId, 'score.updated', score);
    return this.answer(score.id, seq);
  }

  async delete(actor: Actor, requestId: string, input: HandScoreIdInput): Promise<HandScoreAnswer> {
    const { orgId, row } = await this.changeable(actor, input.projectId, input.id, 'delete');
    const removal = {
      op: 'delete' as const,
      id: row.id,
      traceId: row.trace_id as string,
      ...(row.span_id !== null && { spanId: row.span_id }),
    };
    const seq = await this.ingest.ingestHandScore({ orgId, projectId: input.projectId, userId: actor.userId }, requestId, removal);
    await this.audit.record({
      orgId,
      actorUserId: actor.userId,
      action: 'score.deleted',
      target: row.id,
      details: { projectId: input.projectId, traceId: removal.traceId, spanId: row.span_id, name: row.name, author: row.author_email },
      ip: actor.ip,
    });
    return this.answer(row.id, seq);
  }

  /** The hand score, once the actor may change it: its author, or an admin or owner of the project's organization. */
  private async changeable(
    actor: Actor,
    projectId: string,
    id: string,
    verb: 'change' | 'delete',
  ): Promise<{ orgId: string; row: ScoreRow }> {
    const { orgId, role } = await this.access.projectMembership(actor, projectId);
    const row = await this.traces.scoreById(projectId, id);
    if (!row) throw notFound(`id: score ${id} not found in project ${projectId}`);
    if (row.author_user_id === null) {
      throw forbidden(
        `score ${id} came from ${row.source === 'EVAL' ? 'an evaluator' : 'the API'}; only scores given by hand can be changed here`,
      );
    }
    if (row.author_user_id !== actor.userId && !hasRole(role, ADMIN_ROLES)) {
      throw forbidden(
        `score ${id} was given by ${row.author_email}; only its author, an admin or an owner may ${verb} it, and you are ${role}`,
      );
    }
    return { orgId, row };
  }

  private async answer(id: string, token: SeqToken): Promise<HandScoreAnswer> {
    const seq = this.tokens.encode(token);
    try {
      await this.visibility.waitFor(token);
      return { id, seq, visible: true };
    } catch {
      // Stored all the same: a read with this token as minSeq shows it once the projection has it.
      return { id, seq, visible: false };
    }
  }

  private record(actor: Actor, orgId: string, action: ScoreAuditAction, score: HandScoreUpsert): Promise<void> {
    const { id, traceId, spanId, name, value, comment, authorEmail } = score;
    return this.audit.record({
      orgId,
      actorUserId: actor.userId,
      action,
      target: id,
      details: { traceId, spanId: spanId ?? null, name, value, commented: comment !== '', author: authorEmail },
      ip: actor.ip,
    });
  }
}

/** A 400 naming the field, as every source of scores gets it. */
function refuseMisfit(value: ScoreValue, config: Pick<ScoreConfig, 'name' | 'dataType' | 'minValue' | 'maxValue' | 'categories'>): void {
  const refusal = scoreConfigRefusal({ value }, config);
  if (refusal) throw validationError(`value: ${refusal.message}`);
}
