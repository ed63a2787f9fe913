import { type RpcProcedures, router } from '../rpc/procedures';
import { dto } from '../rpc/rpc-input';
import { ProjectInput } from '../rpc/rpc.dto';
import { TraceGetInput, TraceListInput, TracePageInput, TraceSpanInput } from './trace-query.dto';
import type { TraceReadsService } from './trace-reads.service';

export function traceRouters(reads: TraceReadsService, { authed, heavy, wholeSpan }: RpcProcedures) {
  return {
    trace: router({
      list: heavy.input(dto(TraceListInput)).query(({ ctx, input }) => reads.listTraces(ctx.actor, input)),
      // The trace and a page of its spans and scores; trace.spans and trace.scores page on, trace.span gives one span whole.
      get: heavy.input(dto(TraceGetInput)).query(({ ctx, input }) => reads.getTrace(ctx.actor, input)),
      spans: heavy.input(dto(TracePageInput)).query(({ ctx, input }) => reads.traceSpans(ctx.actor, input)),
      span: wholeSpan.input(dto(TraceSpanInput)).query(({ ctx, input }) => reads.traceSpan(ctx.actor, input)),
      scores: heavy.input(dto(TracePageInput)).query(({ ctx, input }) => reads.traceScores(ctx.actor, input)),
      // A picker's known values: field, prefix, limit past the projectId go on for the domain's rules.
      filterValues: authed
        .input(dto(ProjectInput))
        .query(({ ctx, input: { projectId, ...query } }) => reads.filterValues(ctx.actor, projectId, query)),
    }),
  };
}
