import type { JsMsg } from 'nats';
import type { Logger } from 'pino';
import { PermanentMessageError, PullConsumerRunner } from './consumer';
import type { NatsResources } from './nats-resources';
import type { StreamKey } from './streams';

export interface ProjectionRunnerOptions<T, B = T[]> {
  stream: StreamKey;
  /** Durable consumer name without the stream prefix (CONSUMERS). */
  consumer: string;
  logger: Logger;
  decode(msg: JsMsg): Promise<T>;
  prepare?(items: T[]): B | Promise<B>;
  apply(batch: B): Promise<void>;
  onDeadLetter?(msg: JsMsg, reason: string): Promise<void>;
  isHealthy(): Promise<boolean>;
  /** `PullConsumerOptions`' parallel apply: how many batches at once, which alone, which failures to try again. */
  lanes?: number;
  applyAlone?(batch: B): boolean;
  retryBatchOn?(err: unknown): boolean;
}

/** A durable consumer's connection, names and dead-letter subject under this deployment's prefix: one way for every consumer. */
export function durableRoute(nats: NatsResources, streamKey: StreamKey, consumer: string, logger: Logger) {
  const { js, jsm, layout } = nats;
  const stream = layout.streamName(streamKey);
  const durable = layout.consumerName(consumer);
  return {
    js,
    jsm,
    stream,
    durable,
    name: consumer,
    deadLetterSubject: layout.deadLetterSubject(stream, durable),
    logger: logger.child({ consumer: durable }),
  };
}

/** A projection's durable consumer on one stream, named and dead-lettered the one way every projection is. */
export function projectionRunner<T, B = T[]>(nats: NatsResources, o: ProjectionRunnerOptions<T, B>): PullConsumerRunner<T, B> {
  return new PullConsumerRunner<T, B>({
    ...durableRoute(nats, o.stream, o.consumer, o.logger),
    decode: o.decode,
    prepare: o.prepare,
    apply: o.apply,
    onDeadLetter: o.onDeadLetter,
    isHealthy: o.isHealthy,
    lanes: o.lanes,
    applyAlone: o.applyAlone,
    retryBatchOn: o.retryBatchOn,
  });
}

/** Decodes a message holding one JSON document with `parse`; what it refuses can never be applied. */
export const jsonMessage =
  <T>(parse: (value: unknown) => T) =>
  async (msg: Pick<JsMsg, 'data'>): Promise<T> => {
    try {
      return parse(JSON.parse(new TextDecoder().decode(msg.data)));
    } catch (err) {
      throw new PermanentMessageError((err as Error).message);
    }
  };
