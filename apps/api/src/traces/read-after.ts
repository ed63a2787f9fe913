import { type ExecutionContext, createParamDecorator } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { readInput } from '../http/client-input';
import { TraceReadQueryDto } from './trace-query.dto';

export const MIN_SEQ_HEADER = 'spanlog-min-seq';

/** What a REST read needs for read-your-writes (CONTRACT): the token it waits for and the reply that names what is visible. */
export interface ReadAfter {
  minSeq: string | undefined;
  reply: FastifyReply;
}

/** The `minSeq` query parameter, else the `spanlog-min-seq` header, read by TraceReadQueryDto's rules before the handler runs. */
export const ReadAfter = createParamDecorator((_: unknown, ctx: ExecutionContext): ReadAfter => {
  const http = ctx.switchToHttp();
  const request = http.getRequest<FastifyRequest>();
  const query = request.query as Record<string, unknown>;
  const { minSeq } = readInput(TraceReadQueryDto, { minSeq: query.minSeq ?? request.headers[MIN_SEQ_HEADER] });
  return { minSeq, reply: http.getResponse<FastifyReply>() };
});
