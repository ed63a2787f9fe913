import fc from 'fast-check';
import { DomainError } from '../errors';
import type { PromptVersion } from '../prompts/prompt-template';
import { langfusePromptNotFound, parseLangfusePromptQuery, toLangfusePrompt } from './langfuse-prompt';

const version = (over: Partial<PromptVersion> = {}): PromptVersion => ({
  name: 'support/answer',
  version: 3,
  template: 'Hello {{name}}',
  labels: ['latest', 'production'],
  config: { model: 'gpt-4o-mini' },
  commitMessage: 'shorter',
  createdAt: '2026-11-24T08:00:00.000Z',
  ...over,
});

describe(parseLangfusePromptQuery.name, () => {
  it('asks for the production label when neither version nor label is given, as Langfuse does', () => {
    expect(parseLangfusePromptQuery('support/answer', {})).toEqual({ name: 'support/answer', pick: { by: 'label', label: 'production' } });
  });

  it('keeps an explicit version or label', () => {
    expect(parseLangfusePromptQuery('a', { version: '2' }).pick).toEqual({ by: 'version', version: 2 });
    expect(parseLangfusePromptQuery('a', { label: 'latest' }).pick).toEqual({ by: 'label', label: 'latest' });
  });

  it('refuses version and label together, and a bad name or version, naming the field', () => {
    const fails = (name: string, query: Record<string, unknown>, field: string) => {
      expect(() => parseLangfusePromptQuery(name, query)).toThrow(DomainError);
      expect(() => parseLangfusePromptQuery(name, query)).toThrow(field);
    };
    fails('a', { version: '1', label: 'production' }, 'version, label');
    fails('a', { version: 'one' }, 'version:');
    fails(' a', {}, 'name:');
  });
});

describe(toLangfusePrompt.name, () => {
  it('answers a text template as type text and a chat template as type chat, with no tags', () => {
    expect(toLangfusePrompt(version())).toEqual({
      name: 'support/answer',
      version: 3,
      type: 'text',
      prompt: 'Hello {{name}}',
      config: { model: 'gpt-4o-mini' },
      labels: ['latest', 'production'],
      tags: [],
      commitMessage: 'shorter',
      createdAt: '2026-11-24T08:00:00.000Z',
      updatedAt: '2026-11-24T08:00:00.000Z',
    });
    const chat = [{ role: 'system', content: 'Be brief.' }];
    expect(toLangfusePrompt(version({ template: chat }))).toMatchObject({ type: 'chat', prompt: chat });
  });

  it('keeps every template as stored, its kind deciding the type', () => {
    const template = fc.oneof(fc.string(), fc.array(fc.record({ role: fc.string(), content: fc.string() })));
    fc.assert(
      fc.property(template, fc.integer({ min: 1 }), (body, n) => {
        const answer = toLangfusePrompt(version({ template: body, version: n }));
        expect(answer.prompt).toBe(body);
        expect(answer.type).toBe(typeof body === 'string' ? 'text' : 'chat');
        expect(answer.version).toBe(n);
      }),
    );
  });
});

describe(langfusePromptNotFound.name, () => {
  it('words the 404 as Langfuse does, in its {message, error} shape', () => {
    expect(langfusePromptNotFound('a', { by: 'label', label: 'production' })).toEqual({
      message: "Prompt not found: 'a' with label 'production'",
      error: 'LangfuseNotFoundError',
    });
    expect(langfusePromptNotFound('a', { by: 'version', version: 7 }).message).toBe("Prompt not found: 'a' with version 7");
  });
});
