import { once } from 'node:events';
import { type Socket, connect } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { MAX_BODY_BYTES } from '@app/domain';
import { answerErrorsLikeTheApp } from './testing/bare-fastify-errors';
import { registerJsonParser } from './json-body-parser';
import { MAX_DRAINED_BYTES, registerOversizedBodyAnswer } from './oversized-body';

/** Reads HTTP responses off a raw socket, one at a time. */
class RawClient {
  private buffered = '';

  private constructor(readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (this.buffered += chunk));
  }

  static async open(port: number): Promise<RawClient> {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    return new RawClient(socket);
  }

  async response(): Promise<{ status: number; headers: Record<string, string> }> {
    for (;;) {
      const end = this.buffered.indexOf('\r\n\r\n');
      if (end >= 0) {
        const [statusLine, ...lines] = this.buffered.slice(0, end).split('\r\n');
        const headers = Object.fromEntries(
          lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
        );
        const length = Number(headers['content-length'] ?? 0);
        if (this.buffered.length >= end + 4 + length) {
          this.buffered = this.buffered.slice(end + 4 + length);
          return { status: Number(statusLine.split(' ')[1]), headers };
        }
      }
      await once(this.socket, 'data');
    }
  }
}

const postHead = (length: number) =>
  `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;

describe(registerOversizedBodyAnswer.name, () => {
  let fastify: FastifyInstance;
  let port: number;

  beforeAll(async () => {
    fastify = Fastify({ bodyLimit: MAX_BODY_BYTES });
    registerJsonParser(fastify);
    answerErrorsLikeTheApp(fastify, pino({ level: 'silent' }));
    registerOversizedBodyAnswer(fastify);
    fastify.post('/echo', async (req) => req.body);
    await fastify.listen({ port: 0, host: '127.0.0.1' });
    port = (fastify.server.address() as { port: number }).port;
  });

  afterAll(() => fastify.close());

  it('answers 413 before the body is sent, reads and drops the rest, and keeps the connection', async () => {
    const client = await RawClient.open(port);
    const length = MAX_BODY_BYTES + 1024 * 1024;
    client.socket.write(postHead(length));
    const refused = await client.response();
    expect(refused.status).toBe(413);
    expect(refused.headers.connection).toBeUndefined();
    // The client had not sent its body yet; it does now, then a next request on the same connection.
    client.socket.write(Buffer.alloc(length, 'x'));
    client.socket.write(`${postHead(7)}{"a":1}`);
    expect((await client.response()).status).toBe(200);
    client.socket.destroy();
  });

  const chunkedHead = 'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n';
  const chunk = (data: Buffer) => Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]);

  it('answers 413 to a chunked body over the limit, reads and drops the rest, and keeps the connection', async () => {
    const client = await RawClient.open(port);
    client.socket.write(chunkedHead);
    const piece = chunk(Buffer.alloc(256 * 1024, 'x'));
    const refusedAnswer = client.response();
    // Past the limit, and on: a client streaming a body does not watch for an early answer.
    for (let sent = 0; sent < MAX_BODY_BYTES + 2 * 1024 * 1024; sent += 256 * 1024) client.socket.write(piece);
    client.socket.write('0\r\n\r\n');
    const refused = await refusedAnswer;
    expect(refused.status).toBe(413);
    expect(refused.headers.connection).toBeUndefined();
    client.socket.write(`${postHead(7)}{"a":1}`);
    expect((await client.response()).status).toBe(200);
    client.socket.destroy();
  });

  it('cuts a chunked body that goes on past what it would read', async () => {
    const client = await RawClient.open(port);
    // The cut reaches the client as a reset while it writes.
    client.socket.on('error', () => undefined);
    client.socket.write(chunkedHead);
    const piece = chunk(Buffer.alloc(1024 * 1024, 'x'));
    const closed = new Promise<void>((resolve) => client.socket.once('close', () => resolve()));
    let sent = 0;
    const write = () => (client.socket.destroyed ? undefined : client.socket.write(piece));
    for (let i = 0; i < MAX_DRAINED_BYTES / (1024 * 1024) + 8 && !client.socket.destroyed; i++) {
      sent += piece.length;
      if (!write()) await Promise.race([new Promise((resolve) => client.socket.once('drain', resolve)), closed]);
    }
    await closed;
    // Cut, not read for ever; the 413 sent before may be lost with the reset.
    expect(sent).toBeGreaterThan(MAX_DRAINED_BYTES);
  });

  it('still closes when the declared rest is more than it would read', async () => {
    const client = await RawClient.open(port);
    client.socket.write(postHead(MAX_DRAINED_BYTES + 1));
    const refused = await client.response();
    expect(refused).toMatchObject({ status: 413, headers: { connection: 'close' } });
    client.socket.destroy();
  });
});
