import { setTimeout as sleep } from 'node:timers/promises';
import { type JsMsg, StringCodec } from 'nats';
import pino from 'pino';
import { consumerAppliedMessages, deadLetters as deadLetterCount } from '@app/metrics';
import { PermanentMessageError, PullConsumerRunner } from './consumer';
import { deadLetterTexts, testRoute, until, useStreamsPerTest } from './testing/test-streams';

const sc = StringCodec();

describe(PullConsumerRunner.name, () => {
  const streams = useStreamsPerTest('T');

  /** Every text the runners decoded, in order, redeliveries included. */
  let decodedTexts: string[] = [];
  beforeEach(() => {
    decodedTexts = [];
  });

  /** A runner over the test's INGEST; `batching` swaps in a prepare stage and the apply that takes its batches. */
  async function preparingRunner<B>(
    batching: { prepare?: (items: string[]) => B; apply: (batch: B) => Promise<void> },
    healthy: () => boolean = () => true,
    batchSize = 10,
    ackWaitMs?: number,
  ) {
    const stream = streams.layout.streamName('ingest');
    return new PullConsumerRunner<string, B>({
      ...(await testRoute(streams, stream, 'projector')),
      decode: async (msg: JsMsg) => {
        const text = sc.decode(msg.data);
        decodedTexts.push(text);
        if (text === 'unreadable') throw new PermanentMessageError('cannot read');
        return text;
      },
      ...batching,
      isHealthy: async () => healthy(),
      maxDeliveries: 3,
      batchSize,
      ackWaitMs,
    });
  }

  const runner = (apply: (items: string[]) => Promise<void>, healthy: () => boolean = () => true, batchSize = 10, ackWaitMs?: number) =>
    preparingRunner<string[]>({ apply }, healthy, batchSize, ackWaitMs);

  async function withRunner<B>(r: PullConsumerRunner<string, B>, work: () => Promise<void>) {
    await r.start();
    try {
      await work();
    } finally {
      await r.stop();
    }
  }

  const publish = async (texts: string[]) => {
    const js = streams.nc.jetstream();
    for (const t of texts) await js.publish(`${streams.layout.subjectRoot('ingest')}.o.p.batch`, sc.encode(t));
  };

  const deadLetters = () => deadLetterTexts(streams);

  const counted = async (metric: typeof consumerAppliedMessages, labels: Record<string, string>) =>
    (await metric.get()).values.find((v) => Object.entries(labels).every(([k, x]) => v.labels[k as never] === x))?.value;

  it('applies batches, isolates a poison message, dead-letters it with the reason and keeps going, and counts both', async () => {
    const appliedBefore = (await counted(consumerAppliedMessages, { consumer: 'projector' })) ?? 0;
    const applied: string[] = [];
    const r = await runner(async (items) => {
      if (items.includes('poison')) throw new Error('poison refused');
      applied.push(...items);
    });
    await publish(['a', 'poison', 'b', 'unreadable', 'c']);
    await withRunner(r, async () => {
      // The poison message is dead-lettered after its redeliveries' backoff: seconds alone, far longer on a loaded machine.
      // At least once: a loaded machine has redelivered an applied message (CI saw `c` twice), which the stores' upserts absorb.
      await until(
        async () => new Set(applied).size === 3 && (await deadLetters()).length === 2,
        40_000,
        async () => ({ applied, decodedTexts, deadLetters: await deadLetters() }),
      );
      await publish(['d']);
      await until(() => applied.includes('d'));
    });
    expect([...new Set(applied)].sort()).toEqual(['a', 'b', 'c', 'd']);
    const dlq = await deadLetters();
    expect(dlq).toEqual(
      expect.arrayContaining(['unreadable:cannot read', expect.stringMatching(/^poison:failed 3 times: poison refused/)]),
    );
    expect(await counted(consumerAppliedMessages, { consumer: 'projector' })).toBe(appliedBefore + applied.length);
    expect(await counted(deadLetterCount, { stream: streams.layout.streamName('ingest'), consumer: 'projector' })).toBe(2);
  }, 60_000);

  it('never sees a dead-lettered message again: the server takes the termination, so a letter whose cause is fixed later is applied only by a retry', async () => {
    // A short ack wait, so a message the server still holds as unacknowledged comes back within the test.
    const r = await runner(
      async () => undefined,
      () => true,
      10,
      1_000,
    );
    await publish(['unreadable']);
    await withRunner(r, async () => {
      await until(async () => (await deadLetters()).length === 1);
      await new Promise((resolve) => setTimeout(resolve, 3_500));
    });
    // nats-server 2.9 took `+TERM <reason>` for an unknown acknowledgement and redelivered the message after each ack wait.
    expect(decodedTexts).toEqual(['unreadable']);
    const info = await (await streams.nc.jetstreamManager()).consumers.info(streams.layout.streamName('ingest'), 'projector');
    expect({ pending: info.num_pending, ackPending: info.num_ack_pending, redelivered: info.num_redelivered }).toEqual({
      pending: 0,
      ackPending: 0,
      redelivered: 0,
    });
  }, 30_000);

  it('shows its applied and dead-letter counts at 0 from the start, under the name it is given', async () => {
    // Constructing it is enough: a scrape before its first message already shows both series.
    new PullConsumerRunner<string>({
      js: streams.nc.jetstream(),
      jsm: await streams.nc.jetstreamManager(),
      stream: streams.layout.streamName('usage'),
      durable: `${streams.layout.prefix}usage-projector`,
      name: 'usage-projector',
      deadLetterSubject: streams.layout.deadLetterSubject(streams.layout.streamName('usage'), 'usage-projector'),
      logger: pino({ level: 'silent' }),
      decode: async (msg) => sc.decode(msg.data),
      apply: async () => undefined,
      isHealthy: async () => true,
    });
    expect(await counted(consumerAppliedMessages, { consumer: 'usage-projector' })).toBe(0);
    expect(await counted(deadLetterCount, { stream: streams.layout.streamName('usage'), consumer: 'usage-projector' })).toBe(0);
  });

  it('applies one batch at a time and in stream order, while the next one is fetched meanwhile', async () => {
    const applied: string[] = [];
    let running = 0;
    let mostAtOnce = 0;
    const r = await runner(async (items) => {
      mostAtOnce = Math.max(mostAtOnce, ++running);
      await sleep(100);
      applied.push(...items);
      running--;
    });
    const texts = Array.from({ length: 35 }, (_, i) => `m${i}`);
    await publish(texts);
    await withRunner(r, () => until(() => applied.length === texts.length));
    expect(applied).toEqual(texts);
    expect(mostAtOnce).toBe(1);
  }, 30_000);

  it('applies up to `lanes` batches at once, a batch that must go alone with nothing beside it, and tries a conflicting batch again', async () => {
    const applied: string[] = [];
    const log: string[] = [];
    let running = 0;
    let mostAtOnce = 0;
    let conflicts = 0;
    const stream = streams.layout.streamName('ingest');
    const r = new PullConsumerRunner<string, string[]>({
      ...(await testRoute(streams, stream, 'projector')),
      decode: async (msg: JsMsg) => sc.decode(msg.data),
      apply: async (items) => {
        mostAtOnce = Math.max(mostAtOnce, ++running);
        log.push(`start ${items.join(',')} beside ${running - 1}`);
        await sleep(150);
        running--;
        if (items.includes('conflict') && conflicts++ === 0) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
        applied.push(...items);
      },
      isHealthy: async () => true,
      batchSize: 3,
      lanes: 3,
      applyAlone: (items) => items.some((t) => t.startsWith('delete')),
      retryBatchOn: (err) => (err as { code?: string }).code === '40P01',
    });
    const texts = [
      ...Array.from({ length: 18 }, (_, i) => `m${i}`),
      'delete1',
      'conflict',
      ...Array.from({ length: 9 }, (_, i) => `n${i}`),
    ];
    await publish(texts);
    await withRunner(r, () => until(() => new Set(applied).size === texts.length));
    // Three lanes were used: batches side by side.
    expect(mostAtOnce).toBe(3);
    // The deletion's batch started with nothing beside it, after every earlier message was applied.
    const deletion = log.find((l) => l.includes('delete1')) as string;
    expect(deletion).toMatch(/beside 0$/);
    expect(log.slice(log.indexOf(deletion) + 1).every((l) => !/m\d/.test(l.split(' ')[1]))).toBe(true);
    // The batch that met a deadlock was applied again as a whole, not dead-lettered.
    expect(conflicts).toBe(2);
    expect(await deadLetters()).toEqual([]);
  }, 30_000);

  it('applies a lone message when it arrives, not when a fetch for a full batch gives up', async () => {
    const appliedAt = new Map<string, number>();
    const r = await runner(
      async (items) => {
        for (const item of items) appliedAt.set(item, performance.now());
      },
      undefined,
      256,
    );
    await withRunner(r, async () => {
      for (let i = 0; i < 5; i++) {
        await sleep(300);
        const sent = performance.now();
        await publish([`lone${i}`]);
        await until(() => appliedAt.has(`lone${i}`));
        // A fetch for 256 waits its whole second for messages that never come.
        expect((appliedAt.get(`lone${i}`) as number) - sent).toBeLessThan(600);
      }
    });
  }, 30_000);

  it('prepares the next batch while the previous one is applied, and applies one by one a batch it could not prepare', async () => {
    const events: string[] = [];
    let applying = false;
    let prepared = 0;
    let secondPrepared = () => {};
    const second = new Promise<void>((resolve) => (secondPrepared = resolve));
    const r = await preparingRunner<{ texts: string[]; preparedWhileApplying: boolean }>(
      {
        prepare: (texts) => {
          if (++prepared === 2) secondPrepared();
          if (texts.length > 1 && texts.includes('unpreparable')) throw new Error('cannot prepare');
          return { texts, preparedWhileApplying: applying };
        },
        apply: async (batch) => {
          applying = true;
          // The first batch holds its apply until the next one is prepared: without a prepare stage overlapping it, that never comes.
          await (prepared === 1 ? Promise.race([second, sleep(10_000)]) : sleep(50));
          events.push(...batch.texts.map((t) => `${t}${batch.preparedWhileApplying ? '+' : ''}`));
          applying = false;
        },
      },
      undefined,
      5,
    );
    const texts = Array.from({ length: 15 }, (_, i) => (i === 7 ? 'unpreparable' : `m${i}`));
    await publish(texts);
    await withRunner(r, () => until(() => events.length === texts.length));
    expect(events.map((e) => e.replace('+', ''))).toEqual(texts);
    // The second batch was prepared during the first one's apply.
    expect(events.some((e) => e.endsWith('+'))).toBe(true);
    expect(await deadLetters()).toEqual([]);
  }, 30_000);

  it('does not dead-letter while the store is down, and applies everything once it is back', async () => {
    let storeUp = false;
    const applied: string[] = [];
    const r = await runner(
      async (items) => {
        if (!storeUp) throw new Error('connection refused');
        applied.push(...items);
      },
      () => storeUp,
    );
    await publish(['x', 'y']);
    await withRunner(r, async () => {
      await sleep(3_000);
      expect(applied).toEqual([]);
      storeUp = true;
      await until(() => applied.length === 2);
    });
    expect(await deadLetters()).toEqual([]);
  }, 30_000);
});
