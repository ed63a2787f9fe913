import { Injectable } from '@nestjs/common';
import {
  DomainError,
  type LangfuseIngestionAnswer,
  type NativeEventError,
  PAYLOAD_LIMITS,
  isJsonObject,
  langfuseIngestionToNative,
  splitRunScoreEvents,
} from '@app/domain';
import type { ApiKeyPrincipal } from '@app/persistence';
import { assertBodyWithin } from '../http/body-limit';
import { DatasetsService } from '../datasets/datasets.service';
import { IngestService } from '../ingestion/ingest.service';

/** The ids of a batch's events, by index, as Langfuse names them in its answer. */
const eventIdsOf = (body: unknown): string[] =>
  body !== null && typeof body === 'object' && Array.isArray((body as { batch?: unknown }).batch)
    ? ((body as { batch: unknown[] }).batch.map((e) =>
        e !== null && typeof e === 'object' && typeof (e as { id?: unknown }).id === 'string' ? (e as { id: string }).id : '',
      ) as string[])
    : [];

/**
 * `POST /api/public/ingestion`: Langfuse's batch as our native batch (same validation, limits,
 * quota and storage), answered with Langfuse's 207 `{successes, errors}`. A batch in which no
 * event is valid is still a 207 listing every event's error, as Langfuse answers it; a body
 * that is no batch at all is the native 400.
 */
@Injectable()
export class LangfuseIngestionService {
  constructor(
    private readonly service: IngestService,
    private readonly datasets: DatasetsService,
  ) {}

  /**
   * The answer, and the Spanlog-Seq token when anything was stored. Scores of a dataset run
   * as a whole (`datasetRunId`, no trace) are kept with the run; every other event is telemetry.
   */
  async ingest(
    principal: ApiKeyPrincipal,
    requestId: string,
    raw: Buffer | undefined,
    body: unknown,
  ): Promise<{ body: LangfuseIngestionAnswer; seqToken: string | null }> {
    // Checked here on the client's bytes: the native batch below is a converted copy.
    assertBodyWithin(raw, PAYLOAD_LIMITS.traces);
    const { runScores, rest } = splitRunScoreEvents(body);
    if (!runScores.length) return this.telemetry(principal, requestId, body);
    const ids = eventIdsOf(body);
    const saved = await this.datasets.saveRunScores(
      principal.projectId,
      runScores.map((r) => r.event),
    );
    const answer: LangfuseIngestionAnswer = { successes: [], errors: [] };
    saved.forEach((result, i) => {
      const id = ids[runScores[i].index];
      if (result.ok) answer.successes.push({ id, status: 201 });
      else answer.errors.push({ id, status: result.status, message: result.message, error: result.code });
    });
    if (isJsonObject(rest) && Array.isArray(rest.batch) && !rest.batch.length) return { body: answer, seqToken: null };
    const telemetry = await this.telemetry(principal, requestId, rest);
    return {
      seqToken: telemetry.seqToken,
      body: { successes: [...telemetry.body.successes, ...answer.successes], errors: [...telemetry.body.errors, ...answer.errors] },
    };
  }

  private async telemetry(
    principal: ApiKeyPrincipal,
    requestId: string,
    body: unknown,
  ): Promise<{ body: LangfuseIngestionAnswer; seqToken: string | null }> {
    const ids = eventIdsOf(body);
    const native = langfuseIngestionToNative(body);
    const refusedOf = (errors: NativeEventError[]) =>
      errors.map((e) => ({ id: ids[e.index] ?? e.id ?? '', status: 400, message: e.message, error: e.code }));
    try {
      const result = await this.service.ingestNativeBatch(principal, requestId, undefined, native);
      const refused = new Set(result.body.errors.map((e) => e.index));
      const successes = ids.flatMap((id, index) => (refused.has(index) ? [] : [{ id, status: 201 }]));
      return { seqToken: result.seqToken, body: { successes, errors: refusedOf(result.body.errors) } };
    } catch (err) {
      // Only a batch with no valid event lands here with events to name: the native answer is a 400, Langfuse's a 207 of errors.
      if (!(err instanceof DomainError) || err.code !== 'VALIDATION_ERROR' || ids.length === 0) throw err;
      return {
        seqToken: null,
        body: { successes: [], errors: refusedOf((await this.service.checkNativeBatch(principal.projectId, native)).errors) },
      };
    }
  }
}
