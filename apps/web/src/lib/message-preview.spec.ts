import fc from 'fast-check';
import { toConversation } from '@app/domain/conversation';
import captured from '@app/domain/conversation/fixtures/captured.json';
import { messagePreview } from './message-preview';

type Payload = { input: unknown; output: unknown };
const payloads = Object.entries(captured as unknown as Record<string, Payload | string>).filter(
  (e): e is [string, Payload] => typeof e[1] === 'object',
);

describe(messagePreview.name, () => {
  it.each([
    ['OpenAI chat, system then user', 'langfuse-openai OpenAI.chat', 'What is the capital of France?', 'The capital of France is Paris.'],
    [
      'OTel GenAI parts',
      'traceloop-instrumentation-openai chat gpt-4o-mini',
      'What is the capital of France?',
      'The capital of France is Paris.',
    ],
  ])('shows the last user message as input and the assistant’s text as output: %s', (_, name, input, output) => {
    const payload = (captured as unknown as Record<string, Payload>)[name];
    expect([messagePreview(payload.input, 'input'), messagePreview(payload.output, 'output')]).toEqual([input, output]);
  });

  it('reads the user’s last message, not the first, in a longer chat', () => {
    const chat = [
      { role: 'user', content: 'Where is parcel 42?' },
      { role: 'assistant', content: 'In Lyon.' },
      { role: 'user', content: 'When will it   arrive?' },
    ];
    expect(messagePreview(chat, 'input')).toBe('When will it arrive?');
  });

  it('shows every captured payload where the user (input) or the assistant (output) wrote text as that text, never as its JSON', () => {
    const speaker = { input: 'user', output: 'assistant' };
    let shown = 0;
    for (const [name, { input, output }] of payloads) {
      for (const [value, side] of [
        [input, 'input'],
        [output, 'output'],
      ] as const) {
        const view = toConversation(value, side);
        const texts =
          view.kind === 'conversation'
            ? view.turns
                .filter((t) => t.role === speaker[side])
                .flatMap((t) => t.parts.flatMap((p) => (p.kind === 'text' && p.text.trim() ? [p.text] : [])))
            : [];
        if (typeof value === 'string' || texts.length === 0) continue;
        shown++;
        const cell = messagePreview(value, side, 1000);
        expect([name, side, cell.includes('"role"'), texts.some((t) => cell.includes(t.replace(/\s+/g, ' ').trim()))]).toEqual([
          name,
          side,
          false,
          true,
        ]);
      }
    }
    expect(shown).toBeGreaterThan(10);
  });

  it('falls back to compact JSON for a value no format reads and a reply with no text', () => {
    expect(messagePreview({ question: 'Where is my parcel?' }, 'input')).toBe('{"question":"Where is my parcel?"}');
    const toolOnly = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
    };
    expect(messagePreview(toolOnly, 'output', 1000)).toBe(JSON.stringify(toolOnly));
    expect([messagePreview(null, 'input'), messagePreview(undefined, 'output'), messagePreview('  plain\ntext ', 'input')]).toEqual([
      '',
      '',
      'plain text',
    ]);
  });

  it('cuts a long message to the cell with an ellipsis', () => {
    expect(messagePreview([{ role: 'user', content: 'x'.repeat(100) }], 'input', 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('never throws and never writes more than asked, whatever the value', () => {
    fc.assert(
      fc.property(
        fc.jsonValue(),
        fc.constantFrom('input' as const, 'output' as const),
        fc.integer({ min: 1, max: 120 }),
        (value, side, max) => {
          expect(messagePreview(value, side, max).length).toBeLessThanOrEqual(max);
        },
      ),
    );
  });
});
