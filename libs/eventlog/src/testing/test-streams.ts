import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type NatsConnection, connect } from 'nats';
import pino from 'pino';
import { DEFAULT_NATS_URL, parseNatsServers } from '@app/config';
import { NatsResources } from '../nats-resources';
import { STREAM_KEYS, StreamLayout, ensureStreams } from '../streams';

/** The shared NATS server(s) the int specs use (test/support/global-setup.ts checks that one answers). */
export const TEST_NATS_SERVERS = parseNatsServers(process.env.NATS_URL ?? DEFAULT_NATS_URL).servers;

/** A random stream prefix beginning with `letter`, so that files running at once never share streams. */
export const testStreamPrefix = (letter: string): string => `${letter}${randomUUID().slice(0, 8)}_`;

/** NatsResources as the apps open them, over streams named with `prefix`. */
export const openTestStreams = (name: string, prefix: string): Promise<NatsResources> =>
  NatsResources.open({ natsServers: TEST_NATS_SERVERS, streamPrefix: prefix, streamReplicas: 1 }, name);

/** Deletes the streams `openTestStreams` made and closes its connection; nothing to do when it never opened. */
export async function closeTestStreams(nats: NatsResources | undefined): Promise<void> {
  if (!nats) return;
  for (const key of STREAM_KEYS) await nats.jsm.streams.delete(nats.layout.streamName(key)).catch(() => undefined);
  await nats.close();
}

export interface TestStreams {
  readonly nc: NatsConnection;
  /** This test's streams, named with a prefix of their own. */
  readonly layout: StreamLayout;
}

/** A consumer's connection, names and dead-letter subject on `stream` of the test's streams, under the bare `durable` name, logging nothing. */
export async function testRoute({ nc, layout }: TestStreams, stream: string, durable: string) {
  return {
    js: nc.jetstream(),
    jsm: await nc.jetstreamManager(),
    stream,
    durable,
    deadLetterSubject: layout.deadLetterSubject(stream, durable),
    logger: pino({ level: 'silent' }),
  };
}

/**
 * One connection for the file and fresh streams for each test (prefix `letter` and a random
 * part), deleted after it. Jest runs `afterEach` hooks in the order they are declared, so what
 * must stop before the streams go is declared before this call.
 */
export function useStreamsPerTest(letter: string): TestStreams {
  let nc: NatsConnection | undefined;
  let layout: StreamLayout | undefined;
  const connection = (): NatsConnection => {
    if (!nc) throw new Error('the NATS connection is opened in beforeAll: use it from a hook or a test');
    return nc;
  };
  beforeAll(async () => {
    nc = await connect({ servers: TEST_NATS_SERVERS });
  });
  beforeEach(async () => {
    layout = new StreamLayout(testStreamPrefix(letter));
    await ensureStreams(await connection().jetstreamManager(), layout);
  });
  afterEach(async () => {
    const jsm = await connection().jetstreamManager();
    for (const key of STREAM_KEYS) await jsm.streams.delete((layout as StreamLayout).streamName(key)).catch(() => undefined);
  });
  afterAll(() => nc?.drain());
  return {
    get nc() {
      return connection();
    },
    get layout() {
      if (!layout) throw new Error('the streams are made in beforeEach: use them from a test');
      return layout;
    },
  };
}

/** Each message of the test's dead-letter stream, in order, as `<data>:<Spanlog-DLQ-Reason>`. */
export async function deadLetterTexts({ nc, layout }: TestStreams): Promise<string[]> {
  const jsm = await nc.jetstreamManager();
  const info = await jsm.streams.info(layout.streamName('deadLetter'));
  const out: string[] = [];
  for (let seq = info.state.first_seq; seq <= info.state.last_seq && info.state.messages > 0; seq++) {
    const m = await jsm.streams.getMessage(layout.streamName('deadLetter'), { seq });
    out.push(`${new TextDecoder().decode(m.data)}:${m.header.get('Spanlog-DLQ-Reason')}`);
  }
  return out;
}

/** Polls `check` every 50 ms until it holds; fails after `timeoutMs`, with what `state` then shows. */
export async function until(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 15_000,
  state?: () => unknown | Promise<unknown>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met in time${state ? `; state: ${JSON.stringify(await state())}` : ''}`);
    await sleep(50);
  }
}
