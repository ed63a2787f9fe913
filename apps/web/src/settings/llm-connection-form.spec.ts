import { toLlmConnectionInput } from './llm-connection-form';

const values = { name: 'openai', baseUrl: ' https://api.openai.com/v1 ', apiKey: 'sk-1', headers: 'OpenAI-Organization: org-1' };

describe(toLlmConnectionInput.name, () => {
  it('sends every field on a create, the headers per line', () => {
    expect(toLlmConnectionInput(values, { editing: false })).toEqual({
      name: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      apiKey: 'sk-1',
      headers: { 'OpenAI-Organization': 'org-1' },
    });
  });

  it('keeps the stored key and headers on an edit that left them empty, since they are never shown back', () => {
    expect(toLlmConnectionInput({ ...values, apiKey: '', headers: ' ' }, { editing: true })).toEqual({
      name: 'openai',
      baseUrl: 'https://api.openai.com/v1',
    });
  });

  it('sends an empty key on a create, for the server to name the field', () => {
    expect(toLlmConnectionInput({ ...values, apiKey: '' }, { editing: false })).toHaveProperty('apiKey', '');
  });
});
