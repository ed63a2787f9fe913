import { createServer } from 'node:net';

/** A port `npm start` needs, who listens on it and the variable that moves it. */
export interface PortUse {
  port: number;
  host: string;
  /** Who listens there, as a user reads it: "the API", "the processor's metrics". */
  owner: string;
  variable: string;
  /** What else the variable can do, said after "set VARIABLE to another port". */
  hint?: string;
}

/** The one line `npm start` says when a port it needs is taken. */
export function portTakenLine(use: PortUse): string {
  return `port ${use.port} (${use.owner}, on ${use.host}) is taken: set ${use.variable} to a free port${use.hint ? ` ${use.hint}` : ''}, or stop what uses it`;
}

/** Whether nothing listens on host:port now (a listen that succeeds and is closed at once). */
export function portFree(port: number, host: string): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => done(true)));
  });
}

/** The first of `uses` whose port is taken, or null when all are free. */
export async function firstTaken(uses: readonly PortUse[]): Promise<PortUse | null> {
  for (const use of uses) if (!(await portFree(use.port, use.host))) return use;
  return null;
}

/** The use a child's failure line names, when it failed because a port was taken (EADDRINUSE). */
export function takenIn(line: string, uses: readonly PortUse[]): PortUse | null {
  if (!line.includes('EADDRINUSE')) return null;
  return uses.find((u) => new RegExp(`[:\\s]${u.port}\\b`).test(line)) ?? null;
}
