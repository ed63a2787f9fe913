import { Command } from 'commander';
import { CliError } from '../output';
import { type PushOptions, describeVersion, promptPushBody, registerPromptsCommands } from './prompts.command';

/** The options commander gives `prompts push` for `argv`, through the real declarations. */
function parsed(argv: string[]): { name: string; opts: PushOptions } {
  const program = new Command().exitOverride();
  registerPromptsCommands(program);
  const push = program.commands.find((c) => c.name() === 'prompts')?.commands.find((c) => c.name() === 'push') as Command;
  let result: { name: string; opts: PushOptions } | undefined;
  push.action((name: string, opts: PushOptions) => void (result = { name, opts }));
  program.parse(['prompts', 'push', ...argv], { from: 'user' });
  return result as { name: string; opts: PushOptions };
}

const files: Record<string, string> = {
  'chat.json': '  [{"role":"system","content":"Be brief."}]\n',
  'text.txt': 'Hello {{name}}\n',
  'bracket.txt': '[draft] Hello\n',
};
const read = (path: string) => files[path] ?? '';
const bodyOf = (...argv: string[]) => {
  const { name, opts } = parsed(argv);
  return promptPushBody(name, opts, read);
};

describe(promptPushBody.name, () => {
  it('sends only what was given', () => {
    expect(bodyOf('greeting', '--template', 'Hi')).toEqual({ name: 'greeting', template: 'Hi' });
  });

  it('maps every option to its field, labels repeatable', () => {
    expect(
      bodyOf(
        'greeting',
        '--template',
        'Hi',
        '--label',
        'production',
        '--label',
        'staging',
        '--config',
        '{"model":"m","t":0.2}',
        '--message',
        'why',
      ),
    ).toEqual({
      name: 'greeting',
      template: 'Hi',
      labels: ['production', 'staging'],
      config: { model: 'm', t: 0.2 },
      commitMessage: 'why',
    });
  });

  it('reads a JSON array of messages from a file as a chat template, anything else as text', () => {
    expect(bodyOf('g', '--file', 'chat.json').template).toEqual([{ role: 'system', content: 'Be brief.' }]);
    expect(bodyOf('g', '--file', 'text.txt').template).toBe('Hello {{name}}\n');
    expect(bodyOf('g', '--file', 'bracket.txt').template).toBe('[draft] Hello\n');
  });

  it.each([
    [[], 'give --template or --file'],
    [['--template', 'a', '--file', 'text.txt'], 'give --template or --file, not both'],
    [['--template', 'a', '--config', '[1]'], `--config: must be a JSON object, e.g. '{"model":"gpt-4o"}'`],
    [['--template', 'a', '--config', '{model}'], `--config: must be a JSON object, e.g. '{"model":"gpt-4o"}'`],
  ])('refuses %j with one line', (argv, message) => {
    expect(() => bodyOf('g', ...argv)).toThrow(new CliError(message));
  });

  it('names the file it cannot read', () => {
    const { name, opts } = parsed(['g', '--file', '/nonexistent/prompt.txt']);
    expect(() => promptPushBody(name, opts)).toThrow(new CliError('--file: cannot read /nonexistent/prompt.txt: ENOENT'));
  });
});

describe(describeVersion.name, () => {
  it('shows a chat version one message a line, with its labels, message and config', () => {
    const text = describeVersion({
      name: 'g',
      version: 2,
      template: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: '{{q}}' },
      ],
      labels: ['latest', 'production'],
      config: { model: 'm' },
      commitMessage: 'shorter',
      createdAt: '2026-01-01T00:00:00.000Z',
    });
    expect(text).toBe(
      [
        'g v2 [latest, production]  2026-01-01T00:00:00.000Z',
        '  shorter',
        '',
        'system: Be brief.',
        'user: {{q}}',
        '',
        'config: {"model":"m"}',
      ].join('\n'),
    );
  });
});
