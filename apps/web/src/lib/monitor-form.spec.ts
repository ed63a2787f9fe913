import { EMPTY_MONITOR, filterText, metricText, monitorNumber, monitorValuesOf, toMonitorInput, windowText } from './monitor-form';

describe(toMonitorInput.name, () => {
  it('sends the window in seconds, the filter without blanks and no score name for a span metric', () => {
    expect(
      toMonitorInput({
        ...EMPTY_MONITOR,
        name: ' slow ',
        model: ' gpt-4o ',
        operation: ' chat ',
        scoreName: 'ignored',
        windowMinutes: '60',
        threshold: '2000',
      }),
    ).toEqual({
      name: 'slow',
      metric: 'latency_p95',
      filter: { model: 'gpt-4o', operation: 'chat' },
      windowSeconds: 3600,
      comparison: '>',
      threshold: 2000,
      enabled: true,
    });
  });

  it('sends a score metric its score name, and what does not read as a number as typed, for the server to name', () => {
    expect(
      toMonitorInput({ ...EMPTY_MONITOR, metric: 'score_mean', scoreName: 'helpful', windowMinutes: 'soon', threshold: '' }),
    ).toMatchObject({
      scoreName: 'helpful',
      windowSeconds: 'soon',
      threshold: '',
    });
  });

  it('reads a stored monitor back into the form unchanged', () => {
    const stored = {
      name: 'x',
      metric: 'score_mean',
      scoreName: 'helpful',
      filter: { traceName: 'chat' },
      windowSeconds: 900,
      comparison: '<',
      threshold: 0.5,
      enabled: false,
    };
    expect(
      toMonitorInput(
        monitorValuesOf({
          ...stored,
          id: 'm',
          projectId: 'p',
          state: null,
          value: null,
          evaluatedAt: null,
          createdAt: '',
          updatedAt: '',
        } as Parameters<typeof monitorValuesOf>[0]),
      ),
    ).toEqual(stored);
  });
});

describe('monitor text', () => {
  it('writes windows, filters, metrics and values the way a person reads them', () => {
    expect([windowText(300), windowText(3600), windowText(604_800), windowText(5400)]).toEqual(['5 min', '1 h', '7 d', '90 min']);
    expect([filterText({}), filterText({ model: 'gpt-4o', traceName: 'chat' })]).toEqual(['all', 'model gpt-4o, trace chat']);
    expect(filterText({ operation: 'execute_tool', traceName: 'chat' })).toBe('operation execute_tool, trace chat');
    expect([metricText({ metric: 'calls', scoreName: null }), metricText({ metric: 'score_mean', scoreName: 'helpful' })]).toEqual([
      'calls',
      'score_mean (helpful)',
    ]);
    expect([monitorNumber('latency_p95', 2345.678), monitorNumber('error_rate', 0.123456), monitorNumber('calls', null)]).toEqual([
      '2346 ms',
      '0.1235',
      '–',
    ]);
  });
});
