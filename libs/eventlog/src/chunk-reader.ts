import type { JetStreamClient, JsMsg, ObjectStore } from 'nats';
import { BLOB_HEADER } from './headers';
import { PermanentMessageError } from './consumer';
import { type StreamLayout, openBlobStore } from './streams';

/** Returns a message's data, fetching it from the blob bucket when the chunk lives there. */
export class ChunkReader {
  private store: Promise<ObjectStore> | null = null;

  constructor(
    private readonly js: JetStreamClient,
    private readonly layout: StreamLayout,
  ) {}

  async read(msg: Pick<JsMsg, 'headers' | 'data'>): Promise<Uint8Array> {
    const blob = msg.headers?.has(BLOB_HEADER) ? msg.headers.get(BLOB_HEADER) : null;
    if (!blob) return msg.data;
    this.store ??= openBlobStore(this.js, this.layout).catch((err) => {
      this.store = null;
      throw err;
    });
    const data = await (await this.store).getBlob(blob);
    if (!data) throw new PermanentMessageError(`blob ${blob} is missing from ${this.layout.blobBucket}`);
    return data;
  }
}
