import { once } from 'node:events';
import { connect } from 'node:net';
import { type FuzzRequest, NO_ANSWER, PATHS } from './bad-inputs';

const TIMEOUT_MS = 30_000;

/** Sends one fuzz request; resolves with the HTTP status, or NO_ANSWER. */
export function sendFuzz(baseUrl: string, apiKey: string, request: FuzzRequest): Promise<number> {
  return request.contentLength === undefined
    ? viaFetch(baseUrl, apiKey, request)
    : viaSocket(baseUrl, apiKey, request, request.contentLength);
}

async function viaFetch(baseUrl: string, apiKey: string, { endpoint, body, headers }: FuzzRequest): Promise<number> {
  const res = await fetch(`${baseUrl}${PATHS[endpoint]}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey}`, ...headers },
    body,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  await res.arrayBuffer();
  return res.status;
}

/**
 * fetch always sends the body's true length; a lying Content-Length needs a socket. The
 * write side is closed after the body, as a client that gave up would, so a server waiting
 * for bytes that never come sees the end of the stream.
 */
async function viaSocket(
  baseUrl: string,
  apiKey: string,
  { endpoint, body, headers }: FuzzRequest,
  contentLength: number,
): Promise<number> {
  const { hostname, port } = new URL(baseUrl);
  const socket = connect({ host: hostname, port: Number(port) });
  socket.setTimeout(TIMEOUT_MS, () => socket.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
  await once(socket, 'connect');
  const head = [
    `POST ${PATHS[endpoint]} HTTP/1.1`,
    `Host: ${hostname}:${port}`,
    `Authorization: Bearer ${apiKey}`,
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
    `Content-Length: ${contentLength}`,
    'Connection: close',
    '',
    '',
  ].join('\r\n');
  let answer = '';
  socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  const closed = new Promise<NodeJS.ErrnoException | null>((done) => {
    let failure: NodeJS.ErrnoException | null = null;
    socket.on('error', (err) => (failure = err));
    socket.once('close', () => done(failure));
  });
  socket.end(Buffer.concat([Buffer.from(head), body]));
  const failure = await closed;
  const status = /^HTTP\/1\.1 (\d{3})/.exec(answer);
  if (status) return Number(status[1]);
  // A reset is how a server that stops reading ends a connection; any other failure is the test's own.
  if (failure && failure.code !== 'ECONNRESET') throw failure;
  return NO_ANSWER;
}
