import {
  type ScoreConfigSettings,
  configNameOf,
  evaluatorScoreRefusal,
  scoreConfigProblem,
  scoreConfigRefusal,
  validateScoreConfigInput,
  validateScoreConfigPatch,
} from './score-config';

const numeric: ScoreConfigSettings = { name: 'accuracy', dataType: 'NUMERIC', minValue: 0, maxValue: 1, categories: [], description: null };
const categorical: ScoreConfigSettings = {
  name: 'tone',
  dataType: 'CATEGORICAL',
  minValue: null,
  maxValue: null,
  categories: [
    { label: 'polite', value: 1 },
    { label: 'rude', value: 0 },
  ],
  description: null,
};
const boolean: ScoreConfigSettings = {
  name: 'correct',
  dataType: 'BOOLEAN',
  minValue: null,
  maxValue: null,
  categories: [],
  description: null,
};

const refusedWith = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('not refused');
};

describe(validateScoreConfigInput.name, () => {
  it('reads each data type with its defaults, the name trimmed', () => {
    expect(validateScoreConfigInput({ name: ' accuracy ', dataType: 'NUMERIC', minValue: 0, maxValue: 1 })).toEqual(numeric);
    expect(validateScoreConfigInput({ name: 'tone', dataType: 'CATEGORICAL', categories: categorical.categories })).toEqual(categorical);
    expect(validateScoreConfigInput({ name: 'correct', dataType: 'BOOLEAN', description: 'is it right' })).toEqual({
      ...boolean,
      description: 'is it right',
    });
  });

  it.each([
    [{ dataType: 'NUMERIC' }, 'name: is required'],
    [{ name: 'x' }, 'dataType: is required'],
    [{ name: 'x', dataType: 'TEXT' }, 'dataType: must be one of NUMERIC, CATEGORICAL, BOOLEAN'],
    [{ name: '  ', dataType: 'NUMERIC' }, 'name: must be a non-blank string'],
    [{ name: 'x', dataType: 'NUMERIC', minValue: 2, maxValue: 1 }, 'minValue: must not be above maxValue (1)'],
    [{ name: 'x', dataType: 'NUMERIC', minValue: 'low' }, 'minValue: must be a number or null'],
    [{ name: 'x', dataType: 'BOOLEAN', maxValue: 1 }, 'maxValue: applies to NUMERIC configs only'],
    [{ name: 'x', dataType: 'CATEGORICAL' }, 'categories: must hold at least one category'],
    [{ name: 'x', dataType: 'NUMERIC', categories: [{ label: 'a', value: 1 }] }, 'categories: apply to CATEGORICAL configs only'],
    [
      {
        name: 'x',
        dataType: 'CATEGORICAL',
        categories: [
          { label: 'a', value: 1 },
          { label: 'a', value: 2 },
        ],
      },
      'categories[1].label: "a" is given twice',
    ],
    [
      {
        name: 'x',
        dataType: 'CATEGORICAL',
        categories: [
          { label: 'a', value: 1 },
          { label: 'b', value: 1 },
        ],
      },
      'categories[1].value: 1 is given twice',
    ],
    [{ name: 'x', dataType: 'CATEGORICAL', categories: [{ label: 'a' }] }, 'categories[0].value: must be a number'],
    [{ name: 'x', dataType: 'NUMERIC', colour: 'red' }, 'colour'],
  ])('refuses %j naming the field', (input, message) => {
    expect(refusedWith(() => validateScoreConfigInput(input))).toContain(message);
  });
});

describe(validateScoreConfigPatch.name, () => {
  it('changes the fields given, checks the whole, and clears a bound given as null', () => {
    expect(validateScoreConfigPatch(numeric, { maxValue: 10 })).toEqual({ ...numeric, maxValue: 10 });
    expect(validateScoreConfigPatch(numeric, { minValue: null })).toEqual({ ...numeric, minValue: null });
    expect(refusedWith(() => validateScoreConfigPatch(numeric, { minValue: 5 }))).toBe('minValue: must not be above maxValue (1)');
  });

  it('keeps the data type: the scores under the name were checked against it', () => {
    expect(refusedWith(() => validateScoreConfigPatch(numeric, { dataType: 'BOOLEAN' }))).toContain('dataType: cannot change (NUMERIC)');
    expect(refusedWith(() => validateScoreConfigPatch(numeric, {}))).toContain('nothing to change');
  });
});

describe(scoreConfigRefusal.name, () => {
  it.each([
    [numeric, 0.5, null],
    [numeric, 0, null],
    [numeric, 1.5, { field: 'value', message: 'must be at most 1 for the score config "accuracy"; got 1.5' }],
    [numeric, -1, { field: 'value', message: 'must be at least 0 for the score config "accuracy"; got -1' }],
    [numeric, 'high', { field: 'dataType', message: 'must be NUMERIC (a number) for the score config "accuracy"; got CATEGORICAL' }],
    [categorical, 'polite', null],
    [
      categorical,
      'sarcastic',
      { field: 'value', message: 'must be one of the categories of the score config "tone" ("polite", "rude"); got "sarcastic"' },
    ],
    [categorical, 1, { field: 'dataType', message: 'must be CATEGORICAL (a category\'s label) for the score config "tone"; got NUMERIC' }],
    [boolean, true, null],
    [boolean, 0, null],
    [boolean, 2, { field: 'value', message: 'must be true or false (or 1 or 0) for the score config "correct"; got 2' }],
    [boolean, 'yes', { field: 'dataType', message: 'must be BOOLEAN (true or false) for the score config "correct"; got CATEGORICAL' }],
  ])('%j takes %j: %j', (config, value, refusal) => {
    expect(scoreConfigRefusal({ value }, config)).toEqual(refusal);
  });

  it('names the score at its path, and lets a score without a config through', () => {
    const configs = new Map([[numeric.name, numeric]]);
    expect(scoreConfigProblem({ name: 'accuracy', value: 3 }, configs, 'scores[2]')).toBe(
      'scores[2].value: must be at most 1 for the score config "accuracy"; got 3',
    );
    expect(scoreConfigProblem({ name: 'other', value: 3 }, configs, 'scores[2]')).toBeNull();
  });

  it('checks a name holding NUL against the config of the name as stored, NUL removed', () => {
    const configs = new Map([[numeric.name, numeric]]);
    expect(configNameOf('accu\u0000racy')).toBe('accuracy');
    expect(scoreConfigProblem({ name: 'accu\u0000racy', value: 3 }, configs, '')).toBe(
      'value: must be at most 1 for the score config "accuracy"; got 3',
    );
  });
});

describe(evaluatorScoreRefusal.name, () => {
  const configs = new Map([[numeric.name, { ...numeric, maxValue: 0.5 }]]);

  it('keeps an evaluator score that fits, and says why one that does not is not written', () => {
    expect(evaluatorScoreRefusal('accuracy', { value: 0.4, dataType: 'NUMERIC' }, configs)).toBeNull();
    expect(evaluatorScoreRefusal('accuracy', { value: 0.9, dataType: 'NUMERIC' }, configs)).toBe(
      'score not written, its config refuses it: value: must be at most 0.5 for the score config "accuracy"; got 0.9',
    );
    // A judge's category against a numeric config: refused for its type.
    expect(evaluatorScoreRefusal('accuracy', { value: 'good', dataType: 'CATEGORICAL' }, configs)).toMatch(
      /^score not written, its config refuses it: dataType: /,
    );
  });
});
