import { randomUUID } from 'node:crypto';
import type { DataSource } from 'typeorm';
import {
  ANNOTATION_QUEUE_LIMITS,
  type AnnotationQueue,
  type AnnotationQueueItem,
  type QueueItemStatus,
  type QueueObjectType,
  type QueueProgress,
  type QueueTarget,
  objectTypeOf,
  validationError,
} from '@app/domain';
import { returnedRows } from '../query-result';

interface QueueRow {
  id: string;
  project_id: string;
  name: string;
  description: string | null;
  score_config_ids: string[];
  archived: boolean;
  created_at: Date;
  updated_at: Date;
}

interface ItemRow {
  id: string;
  queue_id: string;
  position: string;
  object_type: QueueObjectType;
  trace_id: string;
  span_id: string | null;
  status: QueueItemStatus;
  completed_by_user_id: string | null;
  completed_by_email: string | null;
  completed_at: Date | null;
  locked_by_user_id: string | null;
  locked_until: Date | null;
  /** Whether the lock is still in force, as Postgres's clock says. */
  lock_live: boolean;
  created_at: Date;
}

/** The fields of a queue a client sets. */
export interface QueueSettings {
  name: string;
  description: string | null;
  scoreConfigIds: string[];
}

/** Which item `take` looks for, from the item the reviewer is on (`after`), forwards or backwards. */
export interface TakeRequest {
  userId: string;
  after: { id: string; position: string } | null;
  previous: boolean;
}

const QUEUE_COLUMNS = 'id, project_id, name, description, score_config_ids, archived, created_at, updated_at';
const ITEM_COLUMNS = `id, queue_id, position::text AS position, object_type, trace_id, span_id, status, completed_by_user_id, completed_by_email,
  completed_at, locked_by_user_id, locked_until, (locked_until IS NOT NULL AND locked_until > now()) AS lock_live, created_at`;
const UNIQUE_NAME = 'annotation_queues_project_id_name_key';
const UNIQUE_VIOLATION = '23505';
/** A queue's items per status (`… WHERE queue_id = …` follows). */
const COUNTS = `SELECT count(*)::int AS total,
    count(*) FILTER (WHERE status = 'pending')::int AS pending,
    count(*) FILTER (WHERE status = 'completed')::int AS completed,
    count(*) FILTER (WHERE status = 'skipped')::int AS skipped
  FROM annotation_queue_items`;
/** Who completed how many of a queue's items, most first (the queue's condition goes between the two). */
const REVIEWERS = `SELECT completed_by_user_id AS "userId", max(completed_by_email) AS email, count(*)::int AS completed
  FROM annotation_queue_items`;
const REVIEWERS_GROUP = `AND status = 'completed' GROUP BY completed_by_user_id ORDER BY completed DESC, email`;
/** An item another reviewer does not hold: unlocked, its lock run out, or held by the caller (`$me`). */
const free = (me: string) => `(locked_by_user_id IS NULL OR locked_by_user_id = ${me} OR locked_until <= now())`;

const toQueue = (row: QueueRow): AnnotationQueue => ({
  id: row.id,
  projectId: row.project_id,
  name: row.name,
  description: row.description,
  scoreConfigIds: row.score_config_ids,
  archived: row.archived,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
});

/** An item as clients see it: a lock that ran out is no lock. */
export const toQueueItem = (row: ItemRow): AnnotationQueueItem & { position: string } => ({
  id: row.id,
  queueId: row.queue_id,
  position: row.position,
  objectType: row.object_type,
  traceId: row.trace_id,
  spanId: row.span_id,
  status: row.status,
  completedByUserId: row.completed_by_user_id,
  completedByEmail: row.completed_by_email,
  completedAt: row.completed_at?.toISOString() ?? null,
  lockedByUserId: row.lock_live ? row.locked_by_user_id : null,
  lockedUntil: row.lock_live ? (row.locked_until?.toISOString() ?? null) : null,
  createdAt: row.created_at.toISOString(),
});

export type StoredQueueItem = ReturnType<typeof toQueueItem>;

async function uniqueName<T>(name: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const { code, constraint } = err as { code?: string; constraint?: string };
    if (code === UNIQUE_VIOLATION && constraint === UNIQUE_NAME)
      throw validationError(`name: an annotation queue named "${name}" already exists in this project`);
    throw err;
  }
}

/**
 * Annotation queues and their items (issue 30): plain queries, no access rules (the service
 * holds those). Locks are taken and checked against Postgres's clock, one clock for every API
 * replica.
 */
export class AnnotationQueueStore {
  constructor(private readonly db: DataSource) {}

  create(projectId: string, s: QueueSettings): Promise<AnnotationQueue> {
    return uniqueName(s.name, async () => {
      const [row]: QueueRow[] = await this.db.query(
        `INSERT INTO annotation_queues (id, project_id, name, description, score_config_ids) VALUES ($1, $2, $3, $4, $5::uuid[])
         RETURNING ${QUEUE_COLUMNS}`,
        [randomUUID(), projectId, s.name, s.description, s.scoreConfigIds],
      );
      return toQueue(row);
    });
  }

  /** The project's queues, archived ones too, by name, each with its progress. */
  async list(projectId: string): Promise<(AnnotationQueue & QueueProgress)[]> {
    const rows: (QueueRow & QueueProgress)[] = await this.db.query(
      `SELECT ${QUEUE_COLUMNS.replace(/(\w+)/g, 'q.$1')}, p.*, coalesce(r.reviewers, '[]') AS reviewers
         FROM annotation_queues q
         CROSS JOIN LATERAL (${COUNTS} WHERE queue_id = q.id) p
         LEFT JOIN LATERAL (SELECT jsonb_agg(jsonb_build_object('userId', "userId", 'email', email, 'completed', completed)) AS reviewers
                              FROM (${REVIEWERS} WHERE queue_id = q.id ${REVIEWERS_GROUP}) x) r ON true
        WHERE q.project_id = $1 ORDER BY q.name, q.id`,
      [projectId],
    );
    return rows.map((r) => ({
      ...toQueue(r),
      total: r.total,
      pending: r.pending,
      completed: r.completed,
      skipped: r.skipped,
      reviewers: r.reviewers,
    }));
  }

  async get(projectId: string, id: string): Promise<AnnotationQueue | null> {
    const [row]: QueueRow[] = await this.db.query(`SELECT ${QUEUE_COLUMNS} FROM annotation_queues WHERE project_id = $1 AND id = $2`, [
      projectId,
      id,
    ]);
    return row ? toQueue(row) : null;
  }

  update(projectId: string, id: string, s: QueueSettings): Promise<AnnotationQueue | null> {
    return uniqueName(s.name, async () => {
      const [row] = returnedRows<QueueRow>(
        await this.db.query(
          `UPDATE annotation_queues SET name = $3, description = $4, score_config_ids = $5::uuid[], updated_at = now()
            WHERE project_id = $1 AND id = $2 RETURNING ${QUEUE_COLUMNS}`,
          [projectId, id, s.name, s.description, s.scoreConfigIds],
        ),
      );
      return row ? toQueue(row) : null;
    });
  }

  async setArchived(projectId: string, id: string, archived: boolean): Promise<AnnotationQueue | null> {
    const [row] = returnedRows<QueueRow>(
      await this.db.query(
        `UPDATE annotation_queues SET archived = $3, updated_at = now() WHERE project_id = $1 AND id = $2 RETURNING ${QUEUE_COLUMNS}`,
        [projectId, id, archived],
      ),
    );
    return row ? toQueue(row) : null;
  }

  /** The first target (by its index) whose trace, or span in that trace, the project does not have; null when all exist. */
  async firstMissing(projectId: string, targets: QueueTarget[]): Promise<{ index: number; field: 'traceId' | 'spanId' } | null> {
    const [row]: { index: number; trace: boolean }[] = await this.db.query(
      `SELECT t.ord::int - 1 AS index, EXISTS (SELECT 1 FROM traces WHERE project_id = $1 AND id = t.trace_id) AS trace
         FROM unnest($2::uuid[], $3::uuid[]) WITH ORDINALITY AS t(trace_id, span_id, ord)
        WHERE NOT EXISTS (SELECT 1 FROM traces WHERE project_id = $1 AND id = t.trace_id)
           OR (t.span_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM spans WHERE project_id = $1 AND id = t.span_id AND trace_id = t.trace_id))
        ORDER BY t.ord LIMIT 1`,
      [projectId, targets.map((t) => t.traceId), targets.map((t) => t.spanId ?? null)],
    );
    return row ? { index: row.index, field: row.trace ? 'spanId' : 'traceId' } : null;
  }

  /** Adds the targets in their order; one already in the queue stays as it is. Answers how many were new. */
  async addItems(projectId: string, queueId: string, targets: QueueTarget[]): Promise<number> {
    const rows: { id: string }[] = await this.db.query(
      `INSERT INTO annotation_queue_items (id, queue_id, project_id, object_type, trace_id, span_id)
       SELECT gen_random_uuid(), $1, $2, t.object_type, t.trace_id, t.span_id
         FROM unnest($3::text[], $4::uuid[], $5::uuid[]) WITH ORDINALITY AS t(object_type, trace_id, span_id, ord)
        ORDER BY t.ord
       ON CONFLICT (queue_id, trace_id, span_id) DO NOTHING RETURNING id`,
      [queueId, projectId, targets.map(objectTypeOf), targets.map((t) => t.traceId), targets.map((t) => t.spanId ?? null)],
    );
    return rows.length;
  }

  async progress(queueId: string): Promise<QueueProgress> {
    const [[counts], reviewers]: [Omit<QueueProgress, 'reviewers'>[], QueueProgress['reviewers']] = await Promise.all([
      this.db.query(`${COUNTS} WHERE queue_id = $1`, [queueId]),
      this.db.query(`${REVIEWERS} WHERE queue_id = $1 ${REVIEWERS_GROUP}`, [queueId]),
    ]);
    return { ...counts, reviewers };
  }

  /** One page of a queue's items in queue order, after `afterPosition`, one more than `limit` when more follow. */
  async items(
    queueId: string,
    status: QueueItemStatus | undefined,
    afterPosition: string | null,
    limit: number,
  ): Promise<StoredQueueItem[]> {
    const rows: ItemRow[] = await this.db.query(
      `SELECT ${ITEM_COLUMNS} FROM annotation_queue_items
        WHERE queue_id = $1 AND ($2::text IS NULL OR status = $2) AND ($3::bigint IS NULL OR position > $3::bigint)
        ORDER BY position LIMIT $4`,
      [queueId, status ?? null, afterPosition, limit + 1],
    );
    return rows.map(toQueueItem);
  }

  /** An item of the project, whichever queue it is in. */
  async item(projectId: string, id: string): Promise<StoredQueueItem | null> {
    const [row]: ItemRow[] = await this.db.query(`SELECT ${ITEM_COLUMNS} FROM annotation_queue_items WHERE project_id = $1 AND id = $2`, [
      projectId,
      id,
    ]);
    return row ? toQueueItem(row) : null;
  }

  /**
   * Locks the next item for the reviewer and answers it, or null when none is free. Forwards:
   * the first pending item after `after` (then from the start; without `after`, the item the
   * reviewer already holds comes first); backwards: the item before `after`, whatever its
   * status, to look at or score again. `FOR UPDATE SKIP LOCKED` and the lock test repeated
   * on the row make two reviewers asking at once take two different items. The reviewer's
   * other locks in the queue are let go, so one person holds one item.
   */
  async take(queueId: string, { userId, after, previous }: TakeRequest): Promise<StoredQueueItem | null> {
    const params: unknown[] = [queueId, userId, ANNOTATION_QUEUE_LIMITS.lockMs, after?.id ?? null, after?.position ?? null];
    const candidates = previous
      ? `($5::bigint IS NULL OR position < $5::bigint) AND ($4::uuid IS NULL OR id <> $4::uuid)`
      : `status = 'pending' AND ($4::uuid IS NULL OR id <> $4::uuid)`;
    const order = previous
      ? 'position DESC'
      : `coalesce(locked_by_user_id = $2 AND locked_until > now() AND $4::uuid IS NULL, false) DESC, (position > coalesce($5::bigint, 0)) DESC, position`;
    return this.db.transaction(async (m) => {
      const [row] = returnedRows<ItemRow>(
        await m.query(
          `UPDATE annotation_queue_items SET locked_by_user_id = $2, locked_until = now() + $3 * interval '1 millisecond'
            WHERE id = (SELECT id FROM annotation_queue_items WHERE queue_id = $1 AND ${candidates} AND ${free('$2')}
                         ORDER BY ${order} LIMIT 1 FOR UPDATE SKIP LOCKED)
              AND ${free('$2')}
            RETURNING ${ITEM_COLUMNS}`,
          params,
        ),
      );
      if (!row) return null;
      await m.query(
        `UPDATE annotation_queue_items SET locked_by_user_id = NULL, locked_until = NULL WHERE queue_id = $1 AND locked_by_user_id = $2 AND id <> $3`,
        [queueId, userId, row.id],
      );
      return toQueueItem(row);
    });
  }

  /**
   * Completes or skips an item unless another reviewer holds it, and lets go of its lock;
   * null when it is held by someone else. Completing an item again records the latest reviewer.
   */
  async finish(
    projectId: string,
    id: string,
    status: Exclude<QueueItemStatus, 'pending'>,
    by: { userId: string; email: string },
  ): Promise<StoredQueueItem | null> {
    const [row] = returnedRows<ItemRow>(
      await this.db.query(
        `UPDATE annotation_queue_items
            SET status = $3, locked_by_user_id = NULL, locked_until = NULL,
                completed_by_user_id = CASE WHEN $3 = 'completed' THEN $4 END,
                completed_by_email = CASE WHEN $3 = 'completed' THEN $5 END,
                completed_at = CASE WHEN $3 = 'completed' THEN now() END
          WHERE project_id = $1 AND id = $2 AND ${free('$4')}
          RETURNING ${ITEM_COLUMNS}`,
        [projectId, id, status, by.userId, by.email],
      ),
    );
    return row ? toQueueItem(row) : null;
  }
}
