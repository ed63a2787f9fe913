import Fastify from 'fastify';
import { setTimeout as sleep } from 'node:timers/promises';
import { closeConnectionsWhenDraining } from './close-when-draining';

describe(closeConnectionsWhenDraining.name, () => {
  it('answers requests in flight at close with Connection: close, so the close does not wait for kept-alive clients', async () => {
    const app = Fastify({ keepAliveTimeout: 72_000 });
    closeConnectionsWhenDraining(app);
    app.get('/', async () => {
      await sleep(300);
      return { ok: true };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as { port: number };
    const before = await fetch(`http://127.0.0.1:${port}/`);
    expect(before.headers.get('connection')).toBe('keep-alive');
    await before.text();

    const inFlight = Array.from({ length: 5 }, () => fetch(`http://127.0.0.1:${port}/`));
    await sleep(100);
    // Without the hook this waits for the client to drop its kept-alive connections: about 71 s.
    const closed = app.close();
    const answers = await Promise.all(inFlight);
    expect(answers.map((r) => [r.status, r.headers.get('connection')])).toEqual(Array(5).fill([200, 'close']));
    await Promise.all(answers.map((r) => r.text()));
    await closed;
  });
});
