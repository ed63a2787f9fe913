import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CountingWebhook {
  /** Where an evaluator reaches it. */
  url: string;
  /** The calls answered so far. */
  readonly calls: number;
  close(): Promise<void>;
}

/** A webhook evaluator on 127.0.0.1 that answers every call with `answer` and counts the calls. */
export async function countingWebhook(answer: unknown): Promise<CountingWebhook> {
  let calls = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      calls++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    get calls() {
      return calls;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
