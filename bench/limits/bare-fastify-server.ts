import Fastify from 'fastify';
import { MAX_BODY_BYTES } from '@app/domain';

/**
 * The ceiling of the API's HTTP work on this machine: Fastify with its own JSON parser
 * (secure-json-parse) taking the same OTLP body, with no auth, validation or publish.
 * Run as its own process, as the API is, so the load generator does not share its thread.
 */
async function main(): Promise<void> {
  const app = Fastify({ bodyLimit: MAX_BODY_BYTES });
  app.post('/api/v1/otel/v1/traces', async (req) => {
    const body = req.body as { resourceSpans?: { scopeSpans?: { spans?: unknown[] }[] }[] };
    let accepted = 0;
    for (const rs of body.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) accepted += ss.spans?.length ?? 0;
    return { accepted };
  });
  const address = await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
  process.send?.({ address });
  process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
}

main().catch((err: unknown) => {
  process.stderr.write(`bare fastify failed: ${String(err)}\n`);
  process.exit(1);
});
