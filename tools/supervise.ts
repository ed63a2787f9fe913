import { spawn } from 'node:child_process';
import { type PortUse, portTakenLine, takenIn } from './ports';

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** One app `npm start` runs: its name as a user reads it ("the API") and its command. */
export interface App {
  name: string;
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

/**
 * Runs the apps until a signal or until one of them stops; then stops the others and says why
 * in one line, so a dead processor never leaves an API that serves ingestion nobody applies,
 * and the reason is not buried in its logs. Resolves with the exit code for the supervisor:
 * 0 when a signal asked for the stop, 1 when an app stopped on its own.
 */
export function supervise(apps: readonly App[], ports: readonly PortUse[], say: (line: string) => void): Promise<number> {
  return new Promise((done) => {
    let stopping = false;
    let failed = false;
    let exited = 0;
    const children = apps.map((app) => {
      const child = spawn(app.command, app.args, { env: app.env, stdio: ['ignore', 'inherit', 'pipe'] });
      // Passed through as written, the last line kept: it is why an app that fails to start stopped.
      let last = '';
      let pending = '';
      child.stderr.on('data', (chunk: Buffer) => {
        process.stderr.write(chunk);
        const lines = (pending + chunk.toString('utf8')).split('\n');
        pending = lines.pop() ?? '';
        for (const line of lines) if (line.trim()) last = line.trim();
      });
      return { app, child, lastLine: () => pending.trim() || last };
    });
    const stopOthers = () => {
      for (const { child } of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    };
    for (const { app, child, lastLine } of children) {
      child.on('exit', (code, signal) => {
        if (!stopping) {
          stopping = true;
          failed = true;
          const others = children.filter((c) => c.app !== app).map((c) => c.app.name);
          const port = takenIn(lastLine(), ports);
          const why = port
            ? portTakenLine(port)
            : `${app.name} stopped (${signal ? `signal ${signal}` : `exit code ${code}`})${lastLine() ? `: ${lastLine()}` : ''}`;
          say(`${why}; stopping ${others.join(' and ') || 'nothing else'} too`);
          stopOthers();
        }
        if (++exited === children.length) {
          for (const signal of SIGNALS) process.off(signal, onSignal);
          done(failed ? 1 : 0);
        }
      });
    }
    const onSignal = () => {
      if (stopping) return;
      stopping = true;
      stopOthers();
    };
    for (const signal of SIGNALS) process.on(signal, onSignal);
  });
}
