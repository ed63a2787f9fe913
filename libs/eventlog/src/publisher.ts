import { createHash } from 'node:crypto';
import type { JetStreamClient, ObjectStore } from 'nats';
import { type IngestEnvelope, envelopeToHeaders, serviceUnavailable } from '@app/domain';
import { publishDuration } from '@app/metrics';
import { BLOB_HEADER, toNatsHeaders } from './headers';
import { type PublishRetryOptions, publishWithRetry } from './publish-retry';
import { type StreamLayout, openBlobStore } from './streams';

export interface PublishResult {
  /** Stream sequence of the last chunk: the request's read-your-writes position. */
  lastSeq: number;
  /** Chunks the stream already held from an earlier try of the same request. */
  duplicates: number;
}

/**
 * Appends one request (one or more chunks) to a stream and resolves only once every chunk
 * is acknowledged, so a 2xx means the whole request is durable. Message ids derive from
 * the content: a client retrying the same body after a partial failure stores each chunk once,
 * and so does our own retry of a chunk through a leader election (publishWithRetry).
 */
export class ChunkPublisher {
  private blobs: Promise<ObjectStore> | null = null;

  constructor(
    private readonly js: JetStreamClient,
    private readonly layout: StreamLayout,
    /** Largest data one message may carry; bigger chunks go to the blob bucket. */
    private readonly maxMessageBytes: number,
    private readonly retry: PublishRetryOptions = {},
  ) {}

  async publish(
    subject: string,
    envelope: Omit<IngestEnvelope, 'chunkIndex' | 'chunkCount'>,
    chunks: Uint8Array[],
  ): Promise<PublishResult> {
    try {
      const acks = await Promise.all(
        chunks.map((data, chunkIndex) => this.publishChunk(subject, { ...envelope, chunkIndex, chunkCount: chunks.length }, data)),
      );
      return {
        lastSeq: Math.max(...acks.map((a) => a.seq)),
        duplicates: acks.filter((a) => a.duplicate).length,
      };
    } catch (err) {
      throw Object.assign(serviceUnavailable('the event log did not acknowledge the request in time; retry it'), { cause: err });
    }
  }

  private async publishChunk(subject: string, envelope: IngestEnvelope, data: Uint8Array) {
    const msgID = createHash('sha256')
      .update(`${envelope.projectId}|${envelope.schema}|${envelope.chunkIndex}/${envelope.chunkCount}|`)
      .update(data)
      .digest('hex');
    const headers = envelopeToHeaders(envelope);
    let payload = data;
    if (data.byteLength > this.maxMessageBytes) {
      await (await this.blobStore()).putBlob({ name: msgID }, data);
      headers[BLOB_HEADER] = msgID;
      payload = new Uint8Array(0);
    }
    const timer = publishDuration.startTimer();
    try {
      const ack = await publishWithRetry(this.js, subject, payload, { msgID, headers: toNatsHeaders(headers) }, this.retry);
      timer({ outcome: 'acked' });
      return ack;
    } catch (err) {
      timer({ outcome: 'failed' });
      throw err;
    }
  }

  private blobStore(): Promise<ObjectStore> {
    this.blobs ??= openBlobStore(this.js, this.layout).catch((err) => {
      this.blobs = null;
      throw err;
    });
    return this.blobs;
  }
}
