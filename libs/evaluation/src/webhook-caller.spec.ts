import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { type WebhookRequestBody } from '@app/domain';
import { WebhookCaller, type WebhookRequest } from './webhook-caller';

const body: WebhookRequestBody = { traceId: 't', spanId: 's', input: 'q', output: 'a', metadata: { name: 'e' }, expectedOutput: null };

describe(WebhookCaller.name, () => {
  let server: Server;
  let url: string;
  let handle: (req: IncomingMessage, res: ServerResponse, text: string) => void;
  let calls: { headers: IncomingMessage['headers']; body: string }[];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let text = '';
      req.on('data', (c: Buffer) => (text += c.toString()));
      req.on('end', () => {
        calls.push({ headers: req.headers, body: text });
        handle(req, res, text);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/score`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  beforeEach(() => (calls = []));

  const reply = (status: number, json: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(typeof json === 'string' ? json : JSON.stringify(json));
  };
  const waits: number[] = [];
  const caller = (allowPrivateNetworks = true, requireHttps = false) =>
    new WebhookCaller({ allowPrivateNetworks, requireHttps }, async (ms) => {
      waits.push(ms);
    });
  const SIGNING_SECRET = `whsec_${randomBytes(32).toString('base64')}`;
  /** One evaluation's call: the test server's URL, 2 s per attempt, 2 retries, an Authorization header, unless `over` says otherwise. */
  const evaluator = (
    over: Partial<{ url: string; retries: number; timeoutMs: number; headers: Record<string, string> }> = {},
  ): WebhookRequest => {
    const { headers, ...target } = { url, headers: { authorization: 'Bearer k' }, timeoutMs: 2_000, retries: 2, ...over };
    return { target, secrets: { headers, signingSecret: SIGNING_SECRET }, messageId: 'job-1', body };
  };

  it('posts the body as JSON with the configured headers and takes the answer', async () => {
    handle = reply(200, { score: 0.75, pass: true, reason: 'ok' });
    const call = await caller().evaluate(evaluator());
    expect(call).toEqual({ verdict: 'pass', result: { score: 0.75, pass: true, reason: 'ok', metadata: null }, attempts: 1 });
    expect(JSON.parse(calls[0].body)).toEqual(body);
    expect(calls[0].headers).toMatchObject({ authorization: 'Bearer k', 'content-type': 'application/json' });
  });

  it('signs every attempt the Standard Webhooks way, with one message id across retries, which the library verifies', async () => {
    let n = 0;
    handle = (req, res) => (n++ === 0 ? reply(503, 'warming up')(req, res) : reply(200, { score: 1, pass: true })(req, res));
    await caller().evaluate(evaluator({ headers: { authorization: 'Bearer k', 'Webhook-Id': 'forged' } }));
    expect(calls).toHaveLength(2);
    for (const { headers, body: sent } of calls) {
      expect(headers['webhook-id']).toBe('job-1');
      expect(headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      expect(new Webhook(SIGNING_SECRET).verify(sent, headers as Record<string, string>)).toEqual(body);
    }
    expect(() =>
      new Webhook(`whsec_${randomBytes(32).toString('base64')}`).verify(calls[0].body, calls[0].headers as Record<string, string>),
    ).toThrow(/No matching signature/);
  });

  it('retries a 5xx up to `retries` times with backoff, then scores 0 and fail', async () => {
    waits.length = 0;
    handle = reply(502, 'bad gateway');
    const call = await caller().evaluate(evaluator({ retries: 2 }));
    expect(calls).toHaveLength(3);
    expect(waits).toEqual([1_000, 2_000]);
    expect(call.result).toMatchObject({ score: 0, pass: false });
    expect(call.result.reason).toMatch(/HTTP 502 after 3 attempts/);
  });

  it('succeeds on a retry after a 5xx', async () => {
    let n = 0;
    handle = (req, res) => (n++ === 0 ? reply(500, 'oops')(req, res) : reply(200, { score: 1, pass: true })(req, res));
    expect((await caller().evaluate(evaluator())).result).toMatchObject({ score: 1, pass: true });
    expect(calls).toHaveLength(2);
  });

  it('does not retry a 4xx', async () => {
    handle = reply(401, { error: 'no' });
    const call = await caller().evaluate(evaluator({ retries: 5 }));
    expect(calls).toHaveLength(1);
    expect(call.result.reason).toMatch(/HTTP 401 after 1 attempt/);
  });

  it('gives up on an endpoint slower than the time-out, and retries it as a network error', async () => {
    handle = () => undefined;
    const call = await caller().evaluate(evaluator({ timeoutMs: 1_000, retries: 1 }));
    expect(call.attempts).toBe(2);
    expect(call.result.reason).toMatch(/failed after 2 attempts: timed out after 1000 ms/);
  });

  it('refuses an answer larger than it reads', async () => {
    handle = reply(200, { score: 1, pass: true, reason: 'x'.repeat(100_000) });
    const call = await caller().evaluate(evaluator({ retries: 0 }));
    expect(call.result.reason).toMatch(/answer larger than 65536 bytes/);
  });

  it('never has more than 10 calls in flight to one URL', async () => {
    let inFlight = 0;
    let most = 0;
    handle = (req, res) => {
      inFlight++;
      most = Math.max(most, inFlight);
      void sleep(50).then(() => {
        inFlight--;
        reply(200, { score: 1, pass: true })(req, res);
      });
    };
    const c = caller();
    const results = await Promise.all(Array.from({ length: 35 }, () => c.evaluate(evaluator())));
    expect(results.every((r) => r.result.pass)).toBe(true);
    expect(most).toBe(10);
  });

  it('refuses private addresses when they are not allowed, without calling', async () => {
    handle = reply(200, { score: 1, pass: true });
    const call = await caller(false).evaluate(evaluator({ retries: 0 }));
    expect(calls).toHaveLength(0);
    expect(call.result).toMatchObject({ score: 0, pass: false });
    expect(call.result.reason).toMatch(/127\.0\.0\.1/);
  });

  it('scores a header value HTTP cannot carry as 0 and fail, without calling or retrying', async () => {
    handle = reply(200, { score: 1, pass: true });
    const call = await caller().evaluate(evaluator({ headers: { 'X-Key': 'clé €' }, retries: 3 }));
    expect(calls).toHaveLength(0);
    expect(call).toEqual({
      verdict: 'error',
      result: {
        score: 0,
        pass: false,
        reason: expect.stringMatching(/could not be made: Invalid character in header content \["X-Key"\]/),
        metadata: null,
      },
      attempts: 1,
    });
  });

  it('gives up a call in progress when aborted, rejecting instead of scoring, so the job can run again elsewhere', async () => {
    let closed = false;
    handle = (req) => req.socket.on('close', () => (closed = true));
    const aborter = new AbortController();
    const call = caller().evaluate(evaluator({ timeoutMs: 30_000 }), aborter.signal);
    while (!calls.length) await sleep(10);
    aborter.abort(new Error('stopping'));
    await expect(call).rejects.toThrow('stopping');
    while (!closed) await sleep(10);
  });

  it('refuses plain HTTP where HTTPS is required', async () => {
    const call = await caller(true, true).evaluate(evaluator());
    expect(calls).toHaveLength(0);
    expect(call.result.reason).toMatch(/must use HTTPS in production/);
  });
});
