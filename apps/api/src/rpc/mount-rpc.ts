import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { type CreateFastifyContextOptions, type FastifyTRPCPluginOptions, fastifyTRPCPlugin } from '@trpc/server/adapters/fastify';
import { DomainError } from '@app/domain';
import { bearerToken } from '../auth/api-key.guard';
import { AuthService } from '../sessions/auth.service';
import { type AppRouter, type RpcContext, buildRouter } from './router';
import { TenancyService } from './tenancy.service';

/**
 * `/api/trpc/*` (SPEC 4.12): tRPC without a transformer, every HTTP method reaching every
 * procedure (method override), never rate limited. Mounted on Fastify directly, beside Nest's routes.
 */
export async function mountRpc(app: NestFastifyApplication): Promise<void> {
  const auth = app.get(AuthService);
  const router = buildRouter(app.get(TenancyService));
  await app.getHttpAdapter().getInstance().register(fastifyTRPCPlugin, {
    prefix: '/api/trpc',
    trpcOptions: {
      router,
      allowMethodOverride: true,
      createContext: ({ req }: CreateFastifyContextOptions): RpcContext => ({
        ip: req.ip,
        session: () => {
          const token = bearerToken(req);
          if (!token) return Promise.reject(new DomainError('UNAUTHORIZED', 'missing access token: send Authorization: Bearer <ACCESS_TOKEN>'));
          return auth.verifyAccessToken(token);
        },
      }),
    },
  } satisfies FastifyTRPCPluginOptions<AppRouter>);
}
