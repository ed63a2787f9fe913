import { setTimeout as sleep } from 'node:timers/promises';
import { type JsMsg, StringCodec } from 'nats';
import { PermanentMessageError } from './consumer';
import { JobConsumer, type JobConsumerOptions } from './job-consumer';
import { deadLetterTexts, testRoute, until, useStreamsPerTest } from './testing/test-streams';

const sc = StringCodec();

/** A promise the test settles when it wants to. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

describe(JobConsumer.name, () => {
  const consumers: JobConsumer<string>[] = [];

  // Declared before the streams: jest runs afterEach hooks in declaration order, and the consumers read them.
  afterEach(async () => {
    for (const c of consumers.splice(0)) await c.stop();
  });
  const streams = useStreamsPerTest('J');

  /** A started consumer of the test's EVALS stream. */
  async function started(
    run: JobConsumerOptions<string>['run'],
    over: Partial<JobConsumerOptions<string>> = {},
  ): Promise<JobConsumer<string>> {
    const stream = streams.layout.streamName('evals');
    const consumer = new JobConsumer<string>({
      ...(await testRoute(streams, stream, 'worker')),
      decode: async (msg: JsMsg) => {
        const text = sc.decode(msg.data);
        if (text === 'unreadable') throw new PermanentMessageError('cannot read');
        return text;
      },
      run,
      isHealthy: async () => true,
      maxInHand: 50,
      maxDeliveries: 2,
      ...over,
    });
    await consumer.start();
    consumers.push(consumer);
    return consumer;
  }

  const publish = async (texts: string[]) => {
    const js = streams.nc.jetstream();
    for (const t of texts) await js.publish(`${streams.layout.subjectRoot('evals')}.o.e`, sc.encode(t));
  };

  const deadLetters = () => deadLetterTexts(streams);

  const workerInfo = async () => (await streams.nc.jetstreamManager()).consumers.info(streams.layout.streamName('evals'), 'worker');
  const unacked = async () => (await workerInfo()).num_ack_pending;

  it('runs and acks each job when it is done, so jobs fetched after a hanging one finish while it still hangs', async () => {
    const hang = gate();
    const done: string[] = [];
    await started(async (job) => {
      if (job.startsWith('hang')) await hang.wait;
      done.push(job);
    });
    await publish(['hang1', 'hang2']);
    await until(async () => (await unacked()) === 2);
    await publish(['a', 'b', 'c']);
    await until(() => done.length === 3);
    expect(done.sort()).toEqual(['a', 'b', 'c']);
    expect(await unacked()).toBe(2);
    hang.open();
    await until(async () => done.length === 5 && (await unacked()) === 0);
  }, 30_000);

  it('has at most maxInHand jobs running at once, and fetches more as they finish', async () => {
    let running = 0;
    let most = 0;
    const done: string[] = [];
    await started(
      async (job) => {
        most = Math.max(most, ++running);
        await sleep(100);
        running--;
        done.push(job);
      },
      { maxInHand: 3 },
    );
    const jobs = Array.from({ length: 12 }, (_, i) => `j${i}`);
    await publish(jobs);
    await until(() => done.length === jobs.length);
    expect(most).toBe(3);
    expect(done.sort()).toEqual([...jobs].sort());
  }, 30_000);

  it('keeps a job that runs longer than the ack wait from being delivered again', async () => {
    const runs: string[] = [];
    await started(
      async (job) => {
        runs.push(job);
        await sleep(3_500);
      },
      { ackWaitMs: 1_000 },
    );
    await publish(['long']);
    await until(async () => runs.length === 1 && (await unacked()) === 0);
    await sleep(1_500);
    expect(runs).toEqual(['long']);
  }, 30_000);

  it('dead-letters an unreadable message at once and a job that keeps failing after maxDeliveries, and runs the others', async () => {
    // A set: delivery is at least once, and what is tested is that the others run, not how often.
    const done = new Set<string>();
    await started(async (job) => {
      if (job === 'poison') throw new Error('poison refused');
      done.add(job);
    });
    await publish(['a', 'poison', 'unreadable', 'b']);
    // Two deliveries a second apart, then the dead letter: seconds alone. Under a full CI run
    // it has taken over 25 s (a redelivery that misses the one-second pull requests waits
    // for the ack wait, 10 s), so the bound is generous: what is tested is that it happens.
    await until(
      async () => done.size === 2 && (await deadLetters()).length === 2,
      60_000,
      async () => {
        const { num_pending, num_ack_pending, num_redelivered, num_waiting, delivered } = await workerInfo();
        return { done: [...done], deadLetters: await deadLetters(), num_pending, num_ack_pending, num_redelivered, num_waiting, delivered };
      },
    );
    expect([...done].sort()).toEqual(['a', 'b']);
    // At least maxDeliveries: a delivery that reached no pull request counts too.
    expect(await deadLetters()).toEqual(
      expect.arrayContaining(['unreadable:cannot read', expect.stringMatching(/^poison:failed [2-9] times: poison refused/)]),
    );
  }, 90_000);

  it('does not dead-letter while the store is down, and runs the job once it is back', async () => {
    let storeUp = false;
    const done: string[] = [];
    await started(
      async (job) => {
        if (!storeUp) throw new Error('connection refused');
        done.push(job);
      },
      { isHealthy: async () => storeUp },
    );
    await publish(['x']);
    await sleep(3_000);
    expect(done).toEqual([]);
    storeUp = true;
    await until(() => done.length === 1);
    expect(await deadLetters()).toEqual([]);
  }, 30_000);

  it('on stop, lets running jobs finish within the grace, then aborts the rest and hands them back', async () => {
    const finished: string[] = [];
    const first = await started(
      async (job, signal) => {
        if (job === 'quick') {
          await sleep(200);
          finished.push(job);
          return;
        }
        await new Promise<void>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
      },
      { stopGraceMs: 1_000 },
    );
    await publish(['quick', 'stuck']);
    await until(async () => (await unacked()) === 2);
    await first.stop();
    expect(finished).toEqual(['quick']);

    const rerun: string[] = [];
    await started(async (job) => void rerun.push(job));
    await until(() => rerun.length === 1);
    expect(rerun).toEqual(['stuck']);
    expect(await deadLetters()).toEqual([]);
  }, 30_000);
});
