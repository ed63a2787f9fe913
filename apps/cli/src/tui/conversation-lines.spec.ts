import { conversationLines } from './conversation-lines';

describe(conversationLines.name, () => {
  it('writes each turn under its role, tool calls and results with their JSON indented', () => {
    const input = [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '18 degrees' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png' } }] },
    ];
    expect(conversationLines(input, 'input')).toEqual([
      'system:',
      '  Be brief.',
      'assistant:',
      '  → tool call get_weather call_1',
      '    {',
      '      "city": "Paris"',
      '    }',
      'tool:',
      '  ← tool result call_1',
      '    18 degrees',
      'user:',
      '  [image https://example.com/a.png]',
    ]);
  });

  it('ends with the other fields of the request the messages came in', () => {
    expect(conversationLines({ model: 'gpt-4o', messages: [{ role: 'user', content: 'Hi' }] }, 'input')).toEqual([
      'user:',
      '  Hi',
      'other fields:',
      '  {',
      '    "model": "gpt-4o"',
      '  }',
    ]);
  });

  it('leaves bare strings and values of no message format to the JSON view', () => {
    expect(conversationLines('hello', 'output')).toBeUndefined();
    expect(conversationLines({ city: 'Paris' }, 'input')).toBeUndefined();
  });

  it('removes control characters from message text, as from every value the API returns', () => {
    expect(conversationLines([{ role: 'user', content: 'a\u001b[2Jb' }], 'input')).toEqual(['user:', '  a [2Jb']);
  });
});
