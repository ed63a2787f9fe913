import { useState } from 'react';
import { formFields } from '../components/form/fields';
import { type EvaluatorTestResult, useTestEvaluator } from '../data/evaluators';
import { formatCost, formatScore } from '../lib/format';
import { errorMessage } from '../rpc';
import type { toEvaluatorInput } from './evaluator-form';

interface TestValues {
  testOn: string;
  testId: string;
}
const { Field, Choice } = formFields<TestValues>('evtest');
const ON = [
  { value: 'spanId', label: 'Span id' },
  { value: 'traceId', label: 'Trace id' },
] as const;

/** A run's score as a person reads it: the number or the category, and a boolean judge's verdict. */
export function scoreText(score: number | string | null, pass: boolean | null): string {
  if (score === null) return '–';
  const value = typeof score === 'number' ? formatScore(score) : score;
  return pass === null ? value : `${value} (${pass ? 'pass' : 'fail'})`;
}

/** What a judge's own call was: model, tokens and cost. */
export function judgeCallText(judge: EvaluatorTestResult['judge']): string {
  if (!judge) return '–';
  const tokens = judge.promptTokens === null ? '' : ` · ${judge.promptTokens}+${judge.completionTokens ?? 0} tokens`;
  return `${judge.model ?? 'unknown model'}${tokens} · ${formatCost(judge.cost)}`;
}

function TestResult({ result, saved }: { result: EvaluatorTestResult; saved: boolean }) {
  const failed = result.status === 'failed';
  return (
    <div className={`test-result${failed ? ' test-failed' : ''}`} role="status" aria-label="Test result" data-status={result.status}>
      <p>
        <span className={`run-status run-${result.status}`}>{result.status}</span>{' '}
        {failed ? 'It would write no score.' : 'Nothing was stored: this is what a run would score.'}
        {saved && ' (the saved evaluator, with its stored headers)'}
      </p>
      <dl className="test-facts">
        <dt>Score</dt>
        <dd data-testid="test-score">{scoreText(result.score, result.pass)}</dd>
        <dt>Reasoning</dt>
        <dd data-testid="test-comment">{result.comment ?? '–'}</dd>
        {result.reason && (
          <>
            <dt>Reason</dt>
            <dd className="error">{result.reason}</dd>
          </>
        )}
        {result.error && (
          <>
            <dt>Error</dt>
            <dd className="error" data-testid="test-error">
              {result.error}
            </dd>
          </>
        )}
        <dt>Attempts</dt>
        <dd>{result.attempts}</dd>
        {result.judge && (
          <>
            <dt>Judge call</dt>
            <dd>{judgeCallText(result.judge)}</dd>
          </>
        )}
      </dl>
    </div>
  );
}

/**
 * The form's "Test" (issue 29): runs the evaluator once on a span or trace the person names,
 * with the form's current configuration, and shows what it would score; nothing is stored.
 * `subject` reads the form when the button is pressed.
 */
export function EvaluatorTest({
  projectId,
  defaultOn,
  subject,
}: {
  projectId: string;
  defaultOn: 'spanId' | 'traceId';
  subject: () => { saved: boolean; subject: { evaluatorId: string } | { config: ReturnType<typeof toEvaluatorInput> } };
}) {
  const test = useTestEvaluator(projectId);
  const [on, setOn] = useState<'spanId' | 'traceId'>(defaultOn);
  const [id, setId] = useState('');
  const [saved, setSaved] = useState(false);
  const run = () => {
    const chosen = subject();
    setSaved(chosen.saved);
    test.mutate({ subject: chosen.subject, on, id: id.trim() });
  };
  return (
    <fieldset className="evaluator-test">
      <legend>Test before saving</legend>
      <Choice
        name="testOn"
        label="Test on"
        options={ON}
        value={on}
        onChange={(e) => setOn(e.target.value as 'spanId' | 'traceId')}
        form=""
      />
      <Field
        name="testId"
        label={on === 'spanId' ? 'Span id' : 'Trace id'}
        value={id}
        onChange={(e) => setId(e.target.value)}
        hint={on === 'spanId' ? 'as the trace page shows it under the span' : 'any id the trace is known by'}
        form=""
      />
      <div className="form-actions">
        <button type="button" onClick={run} disabled={test.isPending || !id.trim()}>
          {test.isPending ? 'Testing…' : 'Test'}
        </button>
      </div>
      {test.error && (
        <p role="alert" className="error test-call-error">
          The test could not run: {errorMessage(test.error)}
        </p>
      )}
      {test.data && !test.isPending && !test.error && <TestResult result={test.data} saved={saved} />}
    </fieldset>
  );
}
