import { randomBytes } from 'node:crypto';
import { type App, freePort, runApp, runCli } from './support/stack';

/**
 * Settings the apps must refuse at start rather than guess at (issue 24 item 6): a mistyped
 * NODE_ENV used to run development's rules (a random JWT secret, private evaluator URLs)
 * where production was meant. Nothing here needs Postgres or NATS: the settings are read first.
 */
describe('settings refused at start', () => {
  const env = async (nodeEnv: string): Promise<NodeJS.ProcessEnv> => ({
    ...process.env,
    NODE_ENV: nodeEnv,
    // Unreachable on purpose: an app that accepted the settings would fail later, differently.
    DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
    NATS_URL: 'nats://127.0.0.1:1',
    PORT: String(await freePort()),
    METRICS_PORT: String(await freePort()),
    JWT_SECRET: randomBytes(32).toString('hex'),
    SPANLOG_SECRET_KEY: randomBytes(32).toString('base64'),
  });
  const refusal = /^.*NODE_ENV must be one of development, test, production \(got "[^"]*"\).*$/m;

  it.each(['prod', 'Production', 'staging'])(
    'NODE_ENV=%s stops the API, the processor and the CLI with one line naming the accepted values',
    async (nodeEnv) => {
      const settings = await env(nodeEnv);
      for (const app of ['api', 'processor'] as App[]) {
        const { code, stderr } = await runApp(app, settings);
        expect({ app, code }).toEqual({ app, code: 1 });
        expect(stderr).toMatch(refusal);
        expect(stderr.match(refusal)?.[0]).toContain(`"${nodeEnv}"`);
      }
      const cli = await runCli(['admin', 'migrate', '--json'], settings);
      expect(cli.code).not.toBe(0);
      expect(cli.stderr.trim().split('\n')).toHaveLength(1);
      expect(cli.stderr).toMatch(refusal);
    },
    60_000,
  );
});
