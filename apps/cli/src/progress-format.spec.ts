import { Format, type Params } from 'cli-progress';
import { REBUILD_BAR_FORMAT, formatSeconds } from './progress-format';

describe('rebuild progress bar', () => {
  /** The line cli-progress draws with the bar's options for this ETA (what a terminal shows). */
  const line = (eta: unknown) =>
    Format.Formatter(
      {
        ...REBUILD_BAR_FORMAT,
        barsize: 10,
        barCompleteString: '='.repeat(10),
        barIncompleteString: '-'.repeat(10),
        barGlue: '',
        autopaddingChar: '   ',
      },
      { progress: 0.5, eta, startTime: Date.now(), stopTime: null, total: 200, value: 100, maxWidth: 200 } as unknown as Params,
      { projection: 'telemetry', phase: 'replay', speed: 1234 },
    );

  it('ends with the time left, or says it is unknown, never "LLs left"', () => {
    expect(line(65)).toBe('rebuild telemetry [=====-----] 50% | replay 100/200 | 1234/s | time left 1m05s');
    expect(line('NULL')).toMatch(/\| time left unknown$/);
    expect(line('INF')).toMatch(/\| time left unknown$/);
    expect(line('0')).toMatch(/\| time left 0s$/);
  });

  it('writes seconds, minutes and hours', () => {
    expect([
      formatSeconds(9),
      formatSeconds(59.6),
      formatSeconds(125),
      formatSeconds(3720),
      formatSeconds(-1),
      formatSeconds(Number.NaN),
    ]).toEqual(['9s', '1m00s', '2m05s', '1h02m', 'unknown', 'unknown']);
  });
});
