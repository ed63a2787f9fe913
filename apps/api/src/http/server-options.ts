import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Server } from 'node:http';
import type { FastifyHttpOptions } from 'fastify';
import type { AppConfig, TrustProxy } from '@app/config';
import { HTTP_TIMEOUTS, MAX_BODY_BYTES, MAX_PATH_SEGMENT_LENGTH } from '@app/domain';
import { answerClientError, answerRouterError } from './protocol-errors';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Fastify's own hop count trusts nothing (it cannot check the nearest peer), so a count is
 * given as proxy-addr's hop rule instead: the socket's peer and the next `hops - 1` addresses
 * of X-Forwarded-For are proxies. Sound only where nothing reaches the API but through them.
 */
export function trustedProxies(trust: TrustProxy): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust !== 'number') return trust;
  return (_address, hop) => hop < trust;
}

/** The API's HTTP server: body ceiling, request ids, whose X-Forwarded-For to believe, how long to wait on a client, and its own refusals' body. */
export function httpServerOptions(config: Pick<AppConfig, 'trustProxy'>): FastifyHttpOptions<Server> {
  return {
    bodyLimit: MAX_BODY_BYTES,
    // A client's request id is kept when it is sane, so their logs and ours line up.
    genReqId: (req: IncomingMessage) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    trustProxy: trustedProxies(config.trustProxy),
    // Every native id fits, percent-encoded; longer is refused (protocol-errors.ts).
    maxParamLength: MAX_PATH_SEGMENT_LENGTH,
    frameworkErrors: answerRouterError,
    clientErrorHandler: answerClientError,
    requestTimeout: HTTP_TIMEOUTS.requestMs,
    connectionTimeout: HTTP_TIMEOUTS.idleMs,
    keepAliveTimeout: HTTP_TIMEOUTS.keepAliveMs,
    http: { headersTimeout: HTTP_TIMEOUTS.headersMs, connectionsCheckingInterval: HTTP_TIMEOUTS.checkIntervalMs },
  };
}
