import { categoriesText, toScoreConfigInput } from './score-config-form';

const form = { name: 'tone', dataType: 'CATEGORICAL', minValue: '', maxValue: '', categories: '', description: '' };

describe(toScoreConfigInput.name, () => {
  it('reads categories one a line as label = value, and sends no bounds for them', () => {
    expect(toScoreConfigInput({ ...form, categories: ' polite = 1\n\nrude=0 \n' })).toEqual({
      name: 'tone',
      dataType: 'CATEGORICAL',
      categories: [
        { label: 'polite', value: 1 },
        { label: 'rude', value: 0 },
      ],
      description: null,
    });
  });

  it('sends a NUMERIC config its bounds, blank as null, and nothing of categories', () => {
    expect(
      toScoreConfigInput({ ...form, dataType: 'NUMERIC', minValue: '0', maxValue: ' ', categories: 'x = 1', description: 'how right' }),
    ).toEqual({
      name: 'tone',
      dataType: 'NUMERIC',
      minValue: 0,
      maxValue: null,
      description: 'how right',
    });
  });

  it('writes categories back as the form reads them', () => {
    const categories = [
      { label: 'a = b', value: 2 },
      { label: 'c', value: -1 },
    ];
    expect(toScoreConfigInput({ ...form, categories: categoriesText(categories) }).categories).toEqual(categories);
  });
});
