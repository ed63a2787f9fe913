import { once } from 'node:events';
import { createServer } from 'node:net';
import { type PortUse, firstTaken, portTakenLine, takenIn } from './ports';

describe('ports', () => {
  const metrics: PortUse = {
    port: 9464,
    host: '127.0.0.1',
    owner: "the processor's metrics",
    variable: 'METRICS_PORT',
    hint: '(or 0 to serve no metrics)',
  };
  const api: PortUse = { port: 3000, host: '127.0.0.1', owner: 'the API', variable: 'PORT' };

  it('names the port, who needs it and the variable that moves it', () => {
    expect(portTakenLine(metrics)).toBe(
      "port 9464 (the processor's metrics, on 127.0.0.1) is taken: set METRICS_PORT to a free port (or 0 to serve no metrics), or stop what uses it",
    );
    expect(portTakenLine(api)).toBe('port 3000 (the API, on 127.0.0.1) is taken: set PORT to a free port, or stop what uses it');
  });

  it('finds the port an app failed on in its last line', () => {
    const line =
      'spanlog processor failed to start: cannot serve metrics on METRICS_PORT 9464 (HOST 127.0.0.1): listen EADDRINUSE: address already in use 127.0.0.1:9464';
    expect(takenIn(line, [api, metrics])).toBe(metrics);
    expect(takenIn('listen EADDRINUSE: address already in use 127.0.0.1:3000', [api, metrics])).toBe(api);
    expect(takenIn('connect ECONNREFUSED 127.0.0.1:3000', [api, metrics])).toBeNull();
  });

  it('finds a port something listens on', async () => {
    const server = createServer().listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as { port: number }).port;
    try {
      expect(await firstTaken([{ ...api, port }])).toEqual({ ...api, port });
    } finally {
      server.close();
    }
    await once(server, 'close');
    expect(await firstTaken([{ ...api, port }])).toBeNull();
  });
});
