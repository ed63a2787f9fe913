import { Command } from 'commander';
import { CliError } from '../output';
import { type EvaluatorOptions, evaluatorInput, evaluatorSettingOptions, judgeOptions } from './evaluators.command';

const PROJECT = '7d1c7a1e-3b7e-4c43-9d7e-2f0b8d1f6a10';

/** The options commander gives for `argv`, through the real option declarations. */
function parsed(argv: string[]): EvaluatorOptions {
  const command = judgeOptions(
    evaluatorSettingOptions(
      new Command()
        .exitOverride()
        .requiredOption('--project <id>')
        .option('--id <id>')
        .option('--name <name>')
        .option('--url <url>')
        .option('--enabled'),
    ),
  );
  command.parse(argv, { from: 'user' });
  return command.opts<EvaluatorOptions>();
}

const inputOf = (...argv: string[]) => evaluatorInput(parsed(['--project', PROJECT, ...argv]));

describe(evaluatorInput.name, () => {
  it('sends only what was given, so the API fills the defaults', () => {
    expect(inputOf('--name', 'relevance', '--url', 'https://eval.example.com/score')).toEqual({
      projectId: PROJECT,
      name: 'relevance',
      url: 'https://eval.example.com/score',
    });
  });

  it('maps every option to its field', () => {
    const input = inputOf(
      '--name',
      'relevance',
      '--url',
      'https://eval.example.com/score',
      '--header',
      'Authorization: Bearer a:b',
      '--header',
      'X-Team:evals',
      '--timeout-ms',
      '5000',
      '--retries',
      '0',
      '--span-types',
      'LLM, tool',
      '--names',
      'chat,plan',
      '--sample-rate',
      '0.5',
      '--disabled',
    );
    expect(input).toEqual({
      projectId: PROJECT,
      name: 'relevance',
      url: 'https://eval.example.com/score',
      headers: { Authorization: 'Bearer a:b', 'X-Team': 'evals' },
      timeoutMs: 5_000,
      retries: 0,
      filter: { spanTypes: ['LLM', 'tool'], names: ['chat', 'plan'], sampleRate: 0.5 },
      enabled: false,
    });
  });

  it('sends only the filter members given, and an empty list to clear one', () => {
    expect(inputOf('--id', 'e', '--sample-rate', '0.1')).toEqual({ projectId: PROJECT, id: 'e', filter: { sampleRate: 0.1 } });
    expect(inputOf('--id', 'e', '--names', '')).toEqual({ projectId: PROJECT, id: 'e', filter: { names: [] } });
  });

  it('takes a trace target, its quiet window and the trace filter', () => {
    expect(inputOf('--id', 'e', '--target', 'trace', '--quiet-seconds', '5', '--tags', 'prod, eu', '--environments', 'live')).toEqual({
      projectId: PROJECT,
      id: 'e',
      target: 'trace',
      quietSeconds: 5,
      filter: { tags: ['prod', 'eu'], environments: ['live'] },
    });
  });

  it("makes an LLM judge of the judge's flags, its prompt's label after the last @", () => {
    const connection = '0b7c1f6e-2d1a-4c1e-9a55-3e7a6b1c2d3f';
    expect(
      inputOf(
        '--name',
        'tone',
        '--kind',
        'llm-judge',
        '--connection',
        connection,
        '--model',
        'gpt-4.1-mini',
        '--prompt',
        'judges/tone@production',
        '--score-type',
        'categorical',
        '--category',
        'polite',
        '--category',
        'rude',
        '--target',
        'trace',
        '--quiet-seconds',
        '60',
      ),
    ).toEqual({
      projectId: PROJECT,
      name: 'tone',
      kind: 'llm-judge',
      judge: {
        connectionId: connection,
        model: 'gpt-4.1-mini',
        prompt: { name: 'judges/tone', label: 'production' },
        scoreType: 'categorical',
        categories: ['polite', 'rude'],
      },
      target: 'trace',
      quietSeconds: 60,
    });
    // The judge's flags imply the kind; a name with an @ of its own takes its label by --prompt-label.
    expect(inputOf('--name', 'j', '--model', 'm', '--prompt', 'team@ops', '--prompt-label', 'staging')).toEqual({
      projectId: PROJECT,
      name: 'j',
      kind: 'llm-judge',
      judge: { model: 'm', prompt: { name: 'team@ops', label: 'staging' } },
    });
    expect(inputOf('--name', 'j', '--prompt', 'faithfulness').judge).toEqual({ prompt: { name: 'faithfulness' } });
    expect(inputOf('--name', 'w', '--url', 'https://eval.example.com/score')).not.toHaveProperty('kind');
  });

  it('turns an evaluator on or off', () => {
    expect(inputOf('--id', 'e', '--enabled')).toEqual({ projectId: PROJECT, id: 'e', enabled: true });
    expect(inputOf('--id', 'e', '--disabled')).toEqual({ projectId: PROJECT, id: 'e', enabled: false });
  });

  it('passes numbers out of range on to the API, whose message names the field', () => {
    expect(inputOf('--timeout-ms', '999999', '--retries', '1.5')).toMatchObject({ timeoutMs: 999_999, retries: 1.5 });
  });

  it.each([
    [['--timeout-ms', 'soon'], '--timeout-ms: "soon" is not a number'],
    [['--sample-rate', ' '], '--sample-rate: " " is not a number'],
    [['--header', 'Authorization'], `--header: "Authorization" must look like 'Name: value'`],
    [['--header', ': value'], `--header: ": value" must look like 'Name: value'`],
    [['--header', 'X-A: 1', '--header', 'X-A: 2'], '--header: X-A is given twice'],
    [['--enabled', '--disabled'], '--enabled and --disabled contradict each other'],
  ])('refuses %j with one line', (argv, message) => {
    expect(() => inputOf(...argv)).toThrow(new CliError(message));
  });
});
