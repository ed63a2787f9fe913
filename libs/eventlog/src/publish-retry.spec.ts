import type { JetStreamClient, PubAck } from 'nats';
import { isTransientPublishError, publishWithRetry } from './publish-retry';

const natsError = (code: string, apiError?: { code: number; description: string }) =>
  Object.assign(new Error(apiError?.description ?? code), { code, api_error: apiError });
const NO_RESPONDERS = natsError('503');
const ack = (seq: number): PubAck => ({ seq, duplicate: false, stream: 'INGEST', domain: '' });

/** Answers each attempt from `answers` in turn (the last one from then on), recording what was sent. */
function jetStream(...answers: (Error | PubAck)[]) {
  const attempts: { msgID?: string; timeout?: number; at: number }[] = [];
  const started = performance.now();
  const js = {
    publish: async (_subject: string, _data: unknown, opts: { msgID?: string; timeout?: number }) => {
      attempts.push({ msgID: opts.msgID, timeout: opts.timeout, at: performance.now() - started });
      const answer = answers[Math.min(attempts.length, answers.length) - 1];
      if (answer instanceof Error) throw answer;
      return answer;
    },
  } as unknown as JetStreamClient;
  return { js, attempts };
}

describe(publishWithRetry.name, () => {
  it('rides out a leader election: retries while no leader answers, with the same message id, until acknowledged', async () => {
    const { js, attempts } = jetStream(natsError('TIMEOUT'), NO_RESPONDERS, NO_RESPONDERS, ack(7));
    await expect(publishWithRetry(js, 's', 'x', { msgID: 'm1' }, { windowMs: 5_000 })).resolves.toEqual(ack(7));
    expect(attempts.map((a) => a.msgID)).toEqual(['m1', 'm1', 'm1', 'm1']);
    // A growing pause between attempts: 100, 200 and 400 ms.
    expect(attempts[3].at - attempts[0].at).toBeGreaterThanOrEqual(650);
  });

  it('gives up with the last failure once the window is spent, never waiting past it', async () => {
    const { js, attempts } = jetStream(NO_RESPONDERS);
    const started = performance.now();
    await expect(publishWithRetry(js, 's', 'x', { msgID: 'm' }, { windowMs: 1_200 })).rejects.toBe(NO_RESPONDERS);
    expect(performance.now() - started).toBeLessThan(1_200);
    expect(attempts.length).toBeGreaterThan(1);
  });

  it('cuts the last attempt to what is left of the window', async () => {
    const { js, attempts } = jetStream(NO_RESPONDERS, ack(1));
    await publishWithRetry(js, 's', 'x', { msgID: 'm' }, { windowMs: 1_000, attemptTimeoutMs: 5_000 });
    expect(attempts[0].timeout).toBeLessThanOrEqual(1_000);
    // After the first pause (100 ms; a timer may fire a fraction of a millisecond early as performance.now() sees it).
    expect(attempts[1].timeout).toBeLessThan(901);
  });

  it('fails at once on what no retry changes', async () => {
    const tooLarge = natsError('BAD API', { code: 400, description: 'message size exceeds maximum allowed' });
    const { js, attempts } = jetStream(tooLarge, ack(1));
    await expect(publishWithRetry(js, 's', 'x', { msgID: 'm' })).rejects.toBe(tooLarge);
    expect(attempts).toHaveLength(1);
  });
});

describe(isTransientPublishError.name, () => {
  it.each([
    ['no responders (no stream leader yet)', NO_RESPONDERS, true],
    ['no acknowledgement in time', natsError('TIMEOUT'), true],
    ['the connection dropped', natsError('DISCONNECT'), true],
    ['JetStream unavailable for now', natsError('BAD API', { code: 503, description: 'JetStream system temporarily unavailable' }), true],
    [
      'no suitable peers',
      natsError('BAD API', { code: 500, description: 'insufficient resources: no suitable peers for placement' }),
      true,
    ],
    ['a closed connection', natsError('CONNECTION_CLOSED'), false],
    ['a wrong last sequence', natsError('BAD API', { code: 400, description: 'wrong last sequence: 3' }), false],
    ['anything else', new Error('boom'), false],
  ])('%s', (_case, err, transient) => {
    expect(isTransientPublishError(err)).toBe(transient);
  });
});
