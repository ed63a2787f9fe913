import { UNSTORABLE_TEXT, isStorableText } from '../json/sanitize';
import { isJsonObject } from '../json/types';
import { ANNOTATION_QUEUE_LIMITS as LIMITS } from '../limits';
import { type FieldRule, type Problem, ruleOf } from '../validation';

/** What a queue item points at: a whole trace, or one span of it. */
export const QUEUE_OBJECT_TYPES = ['trace', 'span'] as const;
export type QueueObjectType = (typeof QUEUE_OBJECT_TYPES)[number];

/** A queue item waits (`pending`) until a reviewer completes or skips it. */
export const QUEUE_ITEM_STATUSES = ['pending', 'completed', 'skipped'] as const;
export type QueueItemStatus = (typeof QUEUE_ITEM_STATUSES)[number];

/** How far a queue is: items per status, and who completed how many. */
export interface QueueProgress {
  total: number;
  pending: number;
  completed: number;
  skipped: number;
  reviewers: { userId: string; email: string; completed: number }[];
}

/** An annotation queue (issue 30): configuration, kept in Postgres. */
export interface AnnotationQueue {
  id: string;
  projectId: string;
  name: string;
  description: string | null;
  /** The score configs a reviewer gives, in the order the queue shows them (shortcuts 1..9). */
  scoreConfigIds: string[];
  archived: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface AnnotationQueueItem {
  id: string;
  queueId: string;
  objectType: QueueObjectType;
  traceId: string;
  spanId: string | null;
  status: QueueItemStatus;
  completedByUserId: string | null;
  completedByEmail: string | null;
  completedAt: string | null;
  /** Who holds the item now (null when no lock is live). */
  lockedByUserId: string | null;
  lockedUntil: string | null;
  createdAt: string;
}

/** A trace, or a span of it, to put into a queue. */
export interface QueueTarget {
  traceId: string;
  spanId?: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TARGET_KEYS = ['traceId', 'spanId'];

/** The object type an item gets from what it names. */
export const objectTypeOf = (target: QueueTarget): QueueObjectType => (target.spanId === undefined ? 'trace' : 'span');

function targetProblem(v: unknown, i: number): Problem {
  if (!isJsonObject(v)) return { path: `[${i}]`, message: 'must be an object with traceId and, for a span, spanId' };
  if (typeof v.traceId !== 'string' || !UUID.test(v.traceId)) return { path: `[${i}].traceId`, message: 'must be a UUID' };
  if (v.spanId !== undefined && (typeof v.spanId !== 'string' || !UUID.test(v.spanId)))
    return { path: `[${i}].spanId`, message: 'must be a UUID, or absent for the whole trace' };
  const unknownKey = Object.keys(v).find((k) => !TARGET_KEYS.includes(k));
  return unknownKey ? { path: `[${i}].${unknownKey}`, message: 'is not a field of an item (traceId, spanId)' } : null;
}

/** The traces or spans of one `addItems`: 1 to ANNOTATION_QUEUE_LIMITS.itemsPerRequest, each named by its fault (`items[3].traceId`). */
export const queueTargets: FieldRule = ruleOf(
  (v) => {
    if (!Array.isArray(v) || !v.length || v.length > LIMITS.itemsPerRequest)
      return `must be an array of 1 to ${LIMITS.itemsPerRequest} items`;
    for (let i = 0; i < v.length; i++) {
      const problem = targetProblem(v[i], i);
      if (problem) return problem;
    }
    return null;
  },
  {
    type: 'array',
    minItems: 1,
    maxItems: LIMITS.itemsPerRequest,
    items: { type: 'object', required: ['traceId'], properties: { traceId: { type: 'string' }, spanId: { type: 'string' } } },
  },
);

const boundedText = (min: number, max: number, words: string): FieldRule => ({
  read: (v) => (typeof v === 'string' ? v.trim() : v),
  ...ruleOf(
    (v) => {
      if (typeof v !== 'string' || v.length < min || v.length > max) return words;
      return isStorableText(v) ? null : UNSTORABLE_TEXT;
    },
    { type: 'string', minLength: min, maxLength: max },
  ),
});

export const queueName = boundedText(1, LIMITS.nameLength, `must be a non-blank string of at most ${LIMITS.nameLength} characters`);
export const queueDescription = boundedText(
  0,
  LIMITS.descriptionLength,
  `must be a string of at most ${LIMITS.descriptionLength} characters`,
);

/** The configs a queue asks for: distinct ids, at most ANNOTATION_QUEUE_LIMITS.scoreConfigs (one shortcut key each). */
export const queueScoreConfigIds: FieldRule = ruleOf(
  (v) => {
    if (!Array.isArray(v) || v.length > LIMITS.scoreConfigs) return `must be an array of at most ${LIMITS.scoreConfigs} score config ids`;
    for (let i = 0; i < v.length; i++) {
      if (typeof v[i] !== 'string' || !UUID.test(v[i] as string)) return { path: `[${i}]`, message: 'must be a UUID' };
      if (v.indexOf(v[i]) !== i) return { path: `[${i}]`, message: 'is given twice' };
    }
    return null;
  },
  { type: 'array', maxItems: LIMITS.scoreConfigs, items: { type: 'string', format: 'uuid' } },
);
