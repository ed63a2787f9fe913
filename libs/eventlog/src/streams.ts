import {
  type JetStreamClient,
  type JetStreamManager,
  type ObjectStore,
  type StreamConfig,
  DiscardPolicy,
  RetentionPolicy,
  StorageType,
  nanos,
} from 'nats';

/**
 * The streams of DESIGN "Streams", plus the dead-letter stream. Scores travel on INGEST with
 * the rest of a project's telemetry (`ingest.<org>.<project>.scores`), so retention, replay and
 * rebuilds meet them in order with the traces they belong to; there is no SCORES stream.
 */
export const STREAM_KEYS = ['ingest', 'usage', 'evals', 'audit', 'deadLetter'] as const;
export type StreamKey = (typeof STREAM_KEYS)[number];

const BASE_NAMES: Record<StreamKey, { name: string; subject: string }> = {
  ingest: { name: 'INGEST', subject: 'ingest' },
  usage: { name: 'USAGE', subject: 'usage' },
  evals: { name: 'EVALS', subject: 'evals' },
  audit: { name: 'AUDIT', subject: 'audit' },
  deadLetter: { name: 'DLQ', subject: 'dlq' },
};

/** The last token of an INGEST subject: what kind of request the message holds. */
export type IngestSubjectKind = 'batch' | 'otel' | 'logs' | 'scores' | 'run-items' | 'deleted';

/** Retried publishes of the same content inside this window are stored once. */
export const DUPLICATE_WINDOW_MS = 10 * 60 * 1000;

/**
 * Stream, subject and bucket names under one prefix (`SPANLOG_STREAM_PREFIX`), so that
 * test runs and side-by-side deployments never share a stream or overlap in subjects.
 */
export class StreamLayout {
  constructor(
    readonly prefix: string,
    /** Replicas of every stream and bucket (`SPANLOG_STREAM_REPLICAS`): 3 on a JetStream cluster. */
    readonly replicas = 1,
  ) {}

  streamName(key: StreamKey): string {
    return `${this.prefix}${BASE_NAMES[key].name}`;
  }

  subjectRoot(key: StreamKey): string {
    return `${this.prefix}${BASE_NAMES[key].subject}`;
  }

  ingestSubject(orgId: string, projectId: string, kind: IngestSubjectKind): string {
    return `${this.subjectRoot('ingest')}.${orgId}.${projectId}.${kind}`;
  }

  deadLetterSubject(stream: string, consumer: string): string {
    return `${this.subjectRoot('deadLetter')}.${stream}.${consumer}`;
  }

  /** Object store for single events or spans larger than one message. */
  get blobBucket(): string {
    return `${this.prefix}INGEST_BLOBS`;
  }

  /** The stream nats.js keeps the blob bucket in. */
  get blobStream(): string {
    return `OBJ_${this.blobBucket}`;
  }

  consumerName(name: string): string {
    return `${this.prefix}${name}`;
  }

  streamConfig(key: StreamKey): Partial<StreamConfig> {
    return {
      name: this.streamName(key),
      subjects: [`${this.subjectRoot(key)}.>`],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      duplicate_window: nanos(DUPLICATE_WINDOW_MS),
      max_age: 0,
      num_replicas: this.replicas,
    };
  }
}

/** A stream whose replicas `ensureStreams` changed to the configured count. */
export interface ReplicasChange {
  stream: string;
  from: number;
  to: number;
}

/**
 * Creates missing streams and updates changed ones, replicas included; safe to run from every
 * process at start. Returns the streams whose replica count it changed (the server then adds or
 * removes peers in the background).
 */
export async function ensureStreams(jsm: JetStreamManager, layout: StreamLayout): Promise<ReplicasChange[]> {
  const changes: ReplicasChange[] = [];
  for (const key of STREAM_KEYS) {
    const config = layout.streamConfig(key);
    const name = config.name as string;
    try {
      const before = await jsm.streams.info(name);
      await jsm.streams.update(name, config);
      if (before.config.num_replicas !== layout.replicas)
        changes.push({ stream: name, from: before.config.num_replicas, to: layout.replicas });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      try {
        await jsm.streams.add(config);
      } catch (addErr) {
        // Another process created it between our look-up and our add.
        if (!/already in use|already exists/i.test(String(addErr))) throw addErr;
      }
    }
  }
  // The blob bucket is made on first use (openBlobStore), with the count of that process.
  const blobs = await jsm.streams.info(layout.blobStream).catch((err: unknown) => {
    if (isNotFound(err)) return null;
    throw err;
  });
  if (blobs && blobs.config.num_replicas !== layout.replicas) {
    await jsm.streams.update(layout.blobStream, { ...blobs.config, num_replicas: layout.replicas });
    changes.push({ stream: layout.blobStream, from: blobs.config.num_replicas, to: layout.replicas });
  }
  return changes;
}

/** The bucket of blobs too large for one message, made with the layout's replicas when missing. */
export const openBlobStore = (js: JetStreamClient, layout: StreamLayout): Promise<ObjectStore> =>
  js.views.os(layout.blobBucket, { replicas: layout.replicas });

export const isNotFound = (err: unknown): boolean => /not found/i.test(String((err as Error)?.message ?? err));
