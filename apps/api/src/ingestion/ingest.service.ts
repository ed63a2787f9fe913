import { Inject, Injectable } from '@nestjs/common';
import type { Logger } from 'pino';
import { LOGGER } from '@app/config';
import {
  DomainError,
  INGEST_SCHEMAS,
  type IngestSchema,
  type NativeBatchValidation,
  type NativeEventError,
  PAYLOAD_LIMITS,
  type RunItemsMessageData,
  type HandScoreMessage,
  type SeqToken,
  SeqTokenCodec,
  type ValidNativeEvent,
  assertScoresFitConfigs,
  scoreConfigProblem,
  scoreIdOf,
  validateNativeBatch,
  validateScoreRequest,
  validationError,
  writesSpan,
} from '@app/domain';
import {
  ChunkPublisher,
  type IngestSubjectKind,
  NatsResources,
  chunkNativeBatch,
  chunkOtlpExport,
  chunkOtlpLogs,
  chunkScores,
} from '@app/eventlog';
import {
  type ExportTraceServiceRequest,
  type SpanExplanation,
  explainOtlpRequest,
  genAiLogsOf,
  validateOtlpLogsRequest,
  validateOtlpRequest,
} from '@app/otlp';
import { acceptedEvents, acceptedSpans } from '@app/metrics';
import { type ApiKeyPrincipal, ScoreConfigStore } from '@app/persistence';
import { assertBodyWithin } from '../http/body-limit';
import { QuotaService } from '../quota/quota.service';

export interface IngestResult<T> {
  body: T;
  /** Spanlog-Seq: the stream position of the request's last chunk, sealed. */
  seqToken: string;
}

/**
 * Validates a request, appends it to the INGEST stream and answers only once every chunk
 * is acknowledged. It never writes telemetry to Postgres: the processor does.
 */
@Injectable()
export class IngestService {
  constructor(
    private readonly nats: NatsResources,
    private readonly publisher: ChunkPublisher,
    private readonly quota: QuotaService,
    private readonly tokens: SeqTokenCodec,
    private readonly scoreConfigs: ScoreConfigStore,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async ingestNativeBatch(
    principal: ApiKeyPrincipal,
    requestId: string,
    raw: Buffer | undefined,
    body: unknown,
  ): Promise<IngestResult<{ accepted: number; errors: NativeEventError[] }>> {
    assertBodyWithin(raw, PAYLOAD_LIMITS.traces);
    await this.quota.assertCanIngestTraces(principal);
    const { events, errors, misfits } = await this.checkNativeBatch(principal.projectId, body);
    if (events.length === 0 && errors.length > 0) {
      throw validationError(`no event in the batch is valid; first problem: ${errors[0].message}`);
    }
    if (events.length === 0) return { body: { accepted: 0, errors }, seqToken: this.tokens.encode({ stream: 'ingest', seq: 0 }) };
    // A score its config refuses is taken out of what is stored: the processor's validation, which knows no configs, would accept it.
    const sent = (body as { batch: unknown[] }).batch;
    const batch = misfits.size ? sent.filter((_, i) => !misfits.has(i)) : sent;
    const bytes = misfits.size ? Buffer.from(JSON.stringify({ ...(body as object), batch })) : (raw ?? Buffer.from(JSON.stringify(body)));
    const chunks = chunkNativeBatch(bytes, batch, this.nats.maxMessageBytes);
    const seq = await this.append(principal, requestId, INGEST_SCHEMAS.nativeBatch, 'batch', chunks);
    acceptedEvents.inc({ kind: 'batch' }, events.length);
    acceptedSpans.inc({ kind: 'batch' }, events.filter((e) => writesSpan(e.type)).length);
    this.logger.debug(
      { reqId: requestId, accepted: events.length, rejected: errors.length, chunks: chunks.length, seq },
      'native batch stored',
    );
    return { body: { accepted: events.length, errors }, seqToken: this.tokens.encode({ stream: 'ingest', seq }) };
  }

  /**
   * OTLP/JSON export (SPEC 4.2): checked whole, stored as the client's JSON (the processor
   * converts it), answered with the number of spans queued.
   */
  async ingestOtlp(
    principal: ApiKeyPrincipal,
    requestId: string,
    raw: Buffer | undefined,
    body: unknown,
  ): Promise<IngestResult<{ accepted: number }>> {
    assertBodyWithin(raw, PAYLOAD_LIMITS.otelTraces);
    await this.quota.assertCanIngestTraces(principal);
    const { spanCount } = validateOtlpRequest(body);
    if (spanCount === 0) return { body: { accepted: 0 }, seqToken: this.tokens.encode({ stream: 'ingest', seq: 0 }) };
    const request = body as ExportTraceServiceRequest;
    const chunks = chunkOtlpExport(raw ?? Buffer.from(JSON.stringify(request)), request, this.nats.maxMessageBytes);
    const seq = await this.append(principal, requestId, INGEST_SCHEMAS.otlp, 'otel', chunks);
    acceptedEvents.inc({ kind: 'otel' }, spanCount);
    acceptedSpans.inc({ kind: 'otel' }, spanCount);
    this.logger.debug({ reqId: requestId, accepted: spanCount, chunks: chunks.length, seq }, 'otlp export stored');
    return { body: { accepted: spanCount }, seqToken: this.tokens.encode({ stream: 'ingest', seq }) };
  }

  /**
   * `?explain=true`: what the conversion makes of each span and from which attributes, for a
   * user whose spans look empty. Validated like an export; nothing is stored, quota untouched.
   */
  explainOtlp(raw: Buffer | undefined, body: unknown): { spans: SpanExplanation[] } {
    assertBodyWithin(raw, PAYLOAD_LIMITS.otelTraces);
    validateOtlpRequest(body);
    return explainOtlpRequest(body as ExportTraceServiceRequest);
  }

  /**
   * OTLP/JSON logs: checked whole like traces. Only the records that attach GenAI content to a
   * span are stored (cut out of the export, with their resource and scope) and converted by the
   * processor; the others are counted in the answer and dropped, as Spanlog keeps no general logs.
   */
  async ingestOtlpLogs(
    principal: ApiKeyPrincipal,
    requestId: string,
    raw: Buffer | undefined,
    body: unknown,
  ): Promise<IngestResult<{ accepted: number; attached: number }>> {
    assertBodyWithin(raw, PAYLOAD_LIMITS.otelLogs);
    await this.quota.assertCanIngestTraces(principal);
    const { recordCount } = validateOtlpLogsRequest(body);
    const genAi = genAiLogsOf(body as Parameters<typeof genAiLogsOf>[0]);
    if (!genAi) {
      acceptedEvents.inc({ kind: 'logs' }, recordCount);
      return { body: { accepted: recordCount, attached: 0 }, seqToken: this.tokens.encode({ stream: 'ingest', seq: 0 }) };
    }
    const chunks = chunkOtlpLogs(Buffer.from(JSON.stringify(genAi.request)), genAi.request, this.nats.maxMessageBytes);
    const seq = await this.append(principal, requestId, INGEST_SCHEMAS.otlpLogs, 'logs', chunks);
    acceptedEvents.inc({ kind: 'logs' }, recordCount);
    this.logger.debug({ reqId: requestId, accepted: recordCount, attached: genAi.records, chunks: chunks.length, seq }, 'otlp logs stored');
    return { body: { accepted: recordCount, attached: genAi.records }, seqToken: this.tokens.encode({ stream: 'ingest', seq }) };
  }

  /**
   * Scores (CONTRACT "Scores"): checked whole, stored as sent on INGEST like all telemetry, so
   * retention, rebuilds and replays treat them as any score; answered with each score's id.
   */
  async ingestScores(
    principal: ApiKeyPrincipal,
    requestId: string,
    raw: Buffer | undefined,
    body: unknown,
  ): Promise<IngestResult<{ accepted: number; ids: string[] }>> {
    assertBodyWithin(raw, PAYLOAD_LIMITS.scores);
    const scores = validateScoreRequest(body);
    const single = !Object.hasOwn(body as object, 'scores');
    const configs = await this.scoreConfigs.inForce(
      principal.projectId,
      scores.map((s) => s.name),
    );
    assertScoresFitConfigs(
      scores.map((score, i) => ({ score, path: single ? '' : `scores[${i}]` })),
      configs,
    );
    const ids = scores.map((s) => scoreIdOf(s).id);
    if (!scores.length) return { body: { accepted: 0, ids }, seqToken: this.tokens.encode({ stream: 'ingest', seq: 0 }) };
    const list = (body as { scores?: unknown[] }).scores;
    const bytes = raw ?? Buffer.from(JSON.stringify(body));
    const chunks = list ? chunkScores(bytes, list, this.nats.maxMessageBytes) : [bytes];
    const seq = await this.append(principal, requestId, INGEST_SCHEMAS.scores, 'scores', chunks);
    acceptedEvents.inc({ kind: 'scores' }, scores.length);
    this.logger.debug({ reqId: requestId, accepted: scores.length, chunks: chunks.length, seq }, 'scores stored');
    return { body: { accepted: scores.length, ids }, seqToken: this.tokens.encode({ stream: 'ingest', seq }) };
  }

  /**
   * Dataset run items the API resolved (a run by name, an item of the project): stored on
   * INGEST like any telemetry, so the projection writes them, rebuilds and exports keep them
   * and retention removes them with their traces. Answered once the message is durable.
   */
  async ingestRunItems(principal: ApiKeyPrincipal, requestId: string, data: RunItemsMessageData): Promise<string> {
    const seq = await this.append(principal, requestId, INGEST_SCHEMAS.runItems, 'run-items', [Buffer.from(JSON.stringify(data))]);
    acceptedEvents.inc({ kind: 'run-items' }, data.runItems.length);
    return this.tokens.encode({ stream: 'ingest', seq });
  }

  /**
   * A score given by hand, or its removal (issue 30), appended to INGEST like every score so
   * rebuilds, replays, exports, retention and verify cover it. The envelope's key field names
   * the user: no API key was used. Returns the read-your-writes token.
   */
  async ingestHandScore(
    by: { orgId: string; projectId: string; userId: string },
    requestId: string,
    message: HandScoreMessage,
  ): Promise<SeqToken> {
    const principal = { orgId: by.orgId, projectId: by.projectId, apiKeyId: `user:${by.userId}` };
    const seq = await this.append(principal, requestId, INGEST_SCHEMAS.handScore, 'scores', [Buffer.from(JSON.stringify(message))]);
    acceptedEvents.inc({ kind: 'scores' }, 1);
    return { stream: 'ingest', seq };
  }

  /**
   * A native batch's events as validated (`validateNativeBatch`), less its score events that do
   * not fit the config of their name (issue 30), which are refused as any invalid event is.
   */
  async checkNativeBatch(projectId: string, body: unknown): Promise<NativeBatchValidation & { misfits: Map<number, NativeEventError> }> {
    const validation = validateNativeBatch(body);
    const misfits = await this.scoreEventMisfits(projectId, validation.events);
    if (!misfits.size) return { ...validation, misfits };
    return {
      events: validation.events.filter((e) => !misfits.has(e.index)),
      errors: [...validation.errors, ...misfits.values()].sort((a, b) => a.index - b.index),
      misfits,
    };
  }

  private async scoreEventMisfits(projectId: string, events: ValidNativeEvent[]): Promise<Map<number, NativeEventError>> {
    const scores = events.flatMap((e) => (e.type === 'score-create' ? [e] : []));
    const misfits = new Map<number, NativeEventError>();
    if (!scores.length) return misfits;
    const configs = await this.scoreConfigs.inForce(
      projectId,
      scores.map((e) => e.body.name),
    );
    for (const e of scores) {
      const message = scoreConfigProblem(e.body, configs, `batch[${e.index}].body`);
      if (message) misfits.set(e.index, { index: e.index, id: e.id, code: 'VALIDATION_ERROR', message });
    }
    return misfits;
  }

  private async append(
    principal: Pick<ApiKeyPrincipal, 'orgId' | 'projectId' | 'apiKeyId'>,
    requestId: string,
    schema: IngestSchema,
    kind: IngestSubjectKind,
    chunks: Uint8Array[],
  ): Promise<number> {
    const subject = this.nats.layout.ingestSubject(principal.orgId, principal.projectId, kind);
    try {
      const result = await this.publisher.publish(
        subject,
        {
          schema,
          orgId: principal.orgId,
          projectId: principal.projectId,
          apiKeyId: principal.apiKeyId,
          receivedAt: new Date().toISOString(),
          requestId,
        },
        chunks,
      );
      return result.lastSeq;
    } catch (err) {
      if (err instanceof DomainError)
        this.logger.warn({ reqId: requestId, err: String((err as { cause?: unknown }).cause ?? err) }, 'append failed');
      throw err;
    }
  }
}
