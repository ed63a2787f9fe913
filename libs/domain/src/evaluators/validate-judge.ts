import { EVALUATOR_LIMITS as LIMITS } from '../limits';
import { readPromptName } from '../prompts/validate-prompt-template';
import { isStorableText } from '../json/sanitize';
import { ClosedDto, type FieldRule, Optional, Required, nested, oneOf, ruleOf, uuid } from '../validation';
import { JUDGE_SCORE_TYPES, type JudgeScoreType, type JudgeSettings } from './evaluator';

/** A label as prompt templates name them (`production`, `staging`, `latest` …). */
const LABEL = /^[a-z0-9][a-z0-9_.-]*$/;

const promptName: FieldRule = ruleOf(
  (v) => {
    try {
      readPromptName(v);
      return null;
    } catch (err) {
      return (err as Error).message.replace(/^name: /, '');
    }
  },
  { type: 'string', minLength: 1 },
);

const label: FieldRule = ruleOf(
  (v) => (typeof v === 'string' && v.length <= 64 && LABEL.test(v) ? null : 'must be a prompt label such as production'),
  {
    type: 'string',
    pattern: LABEL.source,
  },
);

const model: FieldRule = ruleOf(
  (v) =>
    typeof v === 'string' && v.trim() && v.length <= LIMITS.judgeModelLength
      ? null
      : `must be a model name of at most ${LIMITS.judgeModelLength} characters`,
  { type: 'string', minLength: 1, maxLength: LIMITS.judgeModelLength },
);

const categories: FieldRule = ruleOf(
  (v) => {
    if (!Array.isArray(v) || v.length < 2 || v.length > LIMITS.judgeCategories)
      return `must be an array of 2 to ${LIMITS.judgeCategories} category names`;
    const seen = new Set<string>();
    for (let i = 0; i < v.length; i++) {
      const item: unknown = v[i];
      if (typeof item !== 'string' || !item.trim() || item.length > LIMITS.judgeCategoryLength || !isStorableText(item))
        return { path: `[${i}]`, message: `must be a non-blank string of at most ${LIMITS.judgeCategoryLength} characters` };
      if (seen.has(item)) return { path: `[${i}]`, message: 'is given twice' };
      seen.add(item);
    }
    return null;
  },
  { type: 'array', minItems: 2, maxItems: LIMITS.judgeCategories, items: { type: 'string', minLength: 1 } },
);

@ClosedDto()
class JudgePromptFields {
  @Required(promptName) name: string;
  @Optional(label) label?: string;
}

@ClosedDto()
export class JudgeFields {
  @Required(uuid) connectionId: string;
  @Required(model) model: string;
  @Required({ ...nested(JudgePromptFields), message: 'must be an object with name and label' }) prompt: JudgePromptFields;
  @Required(oneOf(JUDGE_SCORE_TYPES)) scoreType: JudgeScoreType;
  @Optional(categories) categories?: string[];
}

/** A judge's settings from its checked fields: categories only, and always, for a categorical score. */
export function judgeSettingsOf(fields: JudgeFields): { ok: true; judge: JudgeSettings } | { ok: false; path: string; message: string } {
  const categorical = fields.scoreType === 'categorical';
  if (categorical && !fields.categories)
    return { ok: false, path: 'judge.categories', message: 'is required for a categorical score: the names the judge chooses from' };
  if (!categorical && fields.categories)
    return { ok: false, path: 'judge.categories', message: `is only for a categorical score, not ${fields.scoreType}` };
  return {
    ok: true,
    judge: {
      connectionId: fields.connectionId,
      model: fields.model.trim(),
      prompt: { name: fields.prompt.name, label: fields.prompt.label ?? null },
      scoreType: fields.scoreType,
      categories: fields.categories ?? [],
    },
  };
}

export const judgeRule: FieldRule = {
  ...nested(JudgeFields),
  message: 'must be an object with connectionId, model, prompt, scoreType and categories',
};
