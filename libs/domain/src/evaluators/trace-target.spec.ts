import { EVALUATOR_LIMITS } from '../limits';
import { judgeInputOf } from './judge';
import {
  type DueTraceEvaluation,
  type EvaluatedTrace,
  decideDueTraceEvaluation,
  evaluationRequestBody,
  evaluationScoreId,
  traceEvaluationDelaySeconds,
  traceMatchesFilter,
} from './trace-target';

const filter = { spanTypes: ['LLM'], names: [], sampleRate: 1, tags: [], environments: [] };

describe('trace-level evaluation', () => {
  describe(traceEvaluationDelaySeconds.name, () => {
    it('arms a trace once its root span has ended, for the quiet window from the write', () => {
      expect(traceEvaluationDelaySeconds(true, 0, 5)).toBe(5);
      expect(traceEvaluationDelaySeconds(false, 0, 5)).toBeNull();
    });

    it('re-arms once after the first run (late data), never after the second', () => {
      expect(traceEvaluationDelaySeconds(true, 1, 30)).toBe(30);
      expect(traceEvaluationDelaySeconds(true, EVALUATOR_LIMITS.traceRuns, 30)).toBeNull();
    });
  });

  describe(decideDueTraceEvaluation.name, () => {
    const due = (over: Partial<DueTraceEvaluation> = {}): DueTraceEvaluation => ({
      runs: 0,
      evaluatorActive: true,
      traceFound: true,
      rootEnded: true,
      inFilter: true,
      sampled: true,
      ...over,
    });

    it('numbers the runs: the first, then one after late data', () => {
      expect(decideDueTraceEvaluation(due())).toEqual({ kind: 'run', run: 1 });
      expect(decideDueTraceEvaluation(due({ runs: 1 }))).toEqual({ kind: 'run', run: 2 });
      expect(decideDueTraceEvaluation(due({ runs: 2 })).kind).toBe('rest');
    });

    it('removes the row of a deleted trace, and disarms what is not to run now', () => {
      expect(decideDueTraceEvaluation(due({ traceFound: false })).kind).toBe('drop');
      expect(decideDueTraceEvaluation(due({ evaluatorActive: false }))).toEqual({
        kind: 'rest',
        reason: 'the evaluator is disabled or no longer targets traces',
      });
      expect(decideDueTraceEvaluation(due({ rootEnded: false }))).toEqual({ kind: 'rest', reason: 'the root span has not ended' });
      expect(decideDueTraceEvaluation(due({ inFilter: false })).kind).toBe('rest');
    });

    it('logs a trace the sample leaves out as a skipped run, without using the run', () => {
      expect(decideDueTraceEvaluation(due({ sampled: false }))).toEqual({ kind: 'sampled-out', run: 1 });
      expect(decideDueTraceEvaluation(due({ runs: 1, sampled: false }))).toEqual({ kind: 'sampled-out', run: 2 });
      expect(decideDueTraceEvaluation(due({ inFilter: false, sampled: false })).kind).toBe('rest');
    });
  });

  describe(traceMatchesFilter.name, () => {
    const trace = { name: 'checkout', tags: ['prod', 'eu'], environment: 'live' };

    it('matches the trace name, any of its tags, its environment and the sample; span types do not apply', () => {
      expect(traceMatchesFilter(filter, trace, 0.5)).toBe(true);
      expect(traceMatchesFilter({ ...filter, names: ['checkout'], tags: ['eu', 'us'], environments: ['live'] }, trace, 0.5)).toBe(true);
      expect(traceMatchesFilter({ ...filter, names: ['search'] }, trace, 0.5)).toBe(false);
      expect(traceMatchesFilter({ ...filter, tags: ['us'] }, trace, 0.5)).toBe(false);
      expect(traceMatchesFilter({ ...filter, environments: ['staging'] }, { ...trace, environment: null }, 0.5)).toBe(false);
      expect(traceMatchesFilter({ ...filter, sampleRate: 0.5 }, trace, 0.5)).toBe(false);
      expect(traceMatchesFilter({ ...filter, sampleRate: 0.5 }, trace, 0.49)).toBe(true);
    });
  });

  describe(evaluationRequestBody.name, () => {
    const evaluator = {
      id: '0b6b1a4e-8f0e-4d8e-9d38-2f1c9a1b2c3d',
      name: 'task done',
      url: 'https://eval.example.com/score',
      kind: 'webhook' as const,
      judge: null,
      timeoutMs: 10_000,
      retries: 1,
      filter,
      enabled: true,
      target: 'trace' as const,
      quietSeconds: 5,
    };
    const trace: EvaluatedTrace = {
      id: 'a1b2c3d4-0000-4000-8000-000000000001',
      name: 'agent run',
      input: { question: 'refund?' },
      output: 'Yes',
      metadata: { tenant: 'acme' },
      tags: ['prod'],
      userId: 'u1',
      sessionId: null,
      environment: null,
      release: null,
      version: null,
      timestamp: '2026-11-27T06:00:00.000Z',
      startTime: '2026-11-27T06:00:00.000Z',
      endTime: '2026-11-27T06:00:02.000Z',
      latencyMs: 2_000,
      spanCount: 1,
      totalTokens: 12,
      totalCost: 0.001,
      spans: [],
      spansLeftOut: 0,
    };

    it("sends SPEC 6.1's fields for the trace (input and output as text, no span) and the trace without them", () => {
      const { input, output, ...rest } = trace;
      expect(evaluationRequestBody({ kind: 'trace', trace }, evaluator)).toEqual({
        traceId: trace.id,
        spanId: null,
        input: '{"question":"refund?"}',
        output: 'Yes',
        metadata: expect.objectContaining({ id: evaluator.id, target: 'trace', quietSeconds: 5 }),
        expectedOutput: null,
        target: 'trace',
        trace: rest,
      });
      expect(input).toBeDefined();
      expect(output).toBeDefined();
    });

    it("gives a judge the trace's input, output and metadata, as a span's, and the linked item's expected output", () => {
      expect(judgeInputOf({ kind: 'trace', trace }, null)).toEqual({
        input: trace.input,
        output: trace.output,
        metadata: trace.metadata,
        expectedOutput: null,
      });
      expect(
        judgeInputOf({ kind: 'span', traceId: 't', spanId: 's', input: 'q', output: 'a', metadata: { m: 1 } }, { answer: 'b' }),
      ).toEqual({
        input: 'q',
        output: 'a',
        metadata: { m: 1 },
        expectedOutput: { answer: 'b' },
      });
    });

    it('gives both runs of a trace one score id, and a span its job id', () => {
      const target = { kind: 'trace' as const, trace };
      expect(evaluationScoreId('job-1', evaluator.id, target)).toBe(evaluationScoreId('job-2', evaluator.id, target));
      expect(evaluationScoreId('job-1', evaluator.id, target)).not.toBe(evaluationScoreId('job-1', trace.id, target));
      expect(
        evaluationScoreId('job-1', evaluator.id, { kind: 'span', traceId: 't', spanId: 's', input: null, output: null, metadata: null }),
      ).toBe('job-1');
    });
  });
});
