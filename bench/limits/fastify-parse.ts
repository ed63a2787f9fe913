import { fork } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { type LoadFigures, runLoad } from '../load';
import type { Payload } from '../payloads';

/** The bare-Fastify ceiling at each concurrency level, from its own process. */
export async function measureFastifyParse(payload: Payload, levels: number[], durationS: number): Promise<LoadFigures[]> {
  const server = fork(resolve(__dirname, 'bare-fastify-server.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  try {
    const [message] = (await Promise.race([
      once(server, 'message'),
      once(server, 'exit').then(() => {
        throw new Error('the bare Fastify server exited before listening');
      }),
    ])) as [{ address: string }];
    const figures: LoadFigures[] = [];
    for (const connections of levels) {
      figures.push(await runLoad({ baseUrl: message.address, payload, connections, durationS, rssPid: server.pid }));
    }
    return figures;
  } finally {
    if (server.exitCode === null) {
      const exited = once(server, 'exit');
      server.kill('SIGTERM');
      await exited;
    }
  }
}
