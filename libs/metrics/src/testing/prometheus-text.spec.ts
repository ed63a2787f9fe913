import fc from 'fast-check';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { PrometheusTextError, parsePrometheusText, sampleOf } from './prometheus-text';

describe(parsePrometheusText.name, () => {
  it('reads families with their help, type, labels, escapes, special values and timestamps', () => {
    const text = [
      '# HELP http_total Requests, with a \\\\ and a\\nline feed',
      '# TYPE http_total counter',
      'http_total{route="/a/:id",status="200"} 3',
      'http_total{route="quote \\" back \\\\ nl \\n",status="500",} 1.5e3 1700000000000',
      '# a comment',
      '# TYPE temp gauge',
      'temp -Inf',
      'temp{x="nan"} NaN',
      'temp{x="nan as prom-client writes it"} Nan',
      'temp{x="inf"} +Inf',
      '# TYPE lat histogram',
      'lat_bucket{le="0.1"} 1',
      'lat_bucket{le="+Inf"} 2',
      'lat_sum 0.35',
      'lat_count 2',
      '',
    ].join('\n');
    const families = parsePrometheusText(text);
    expect([...families.keys()]).toEqual(['http_total', 'temp', 'lat']);
    expect(families.get('http_total')).toMatchObject({ type: 'counter', help: 'Requests, with a \\ and a\nline feed' });
    expect(sampleOf(families, 'http_total', { status: '500' })).toEqual({
      name: 'http_total',
      labels: { route: 'quote " back \\ nl \n', status: '500' },
      value: 1500,
      timestamp: 1_700_000_000_000,
    });
    expect(sampleOf(families, 'http_total', { route: '/a/:id' })?.value).toBe(3);
    expect(() => sampleOf(families, 'temp')).toThrow(/4 samples of temp/);
    expect(sampleOf(families, 'absent')).toBeUndefined();
    expect(families.get('temp')?.samples.map((s) => s.value)).toEqual([-Infinity, NaN, NaN, Infinity]);
    expect(families.get('lat')?.samples.map((s) => s.name)).toEqual(['lat_bucket', 'lat_bucket', 'lat_sum', 'lat_count']);
    expect(sampleOf(families, 'lat_bucket', { le: '+Inf' })?.value).toBe(2);
  });

  it('accepts an empty exposition and families with no samples', () => {
    expect(parsePrometheusText('').size).toBe(0);
    expect(parsePrometheusText('# HELP a x\n# TYPE a counter\n').get('a')).toEqual({ name: 'a', type: 'counter', help: 'x', samples: [] });
  });

  it.each([
    ['no final line feed', 'a 1'],
    ['a bad metric name', '1a 1\n'],
    ['a bad label name', 'a{1x="y"} 1\n'],
    ['an unterminated label value', 'a{x="y} 1\n'],
    ['a missing comma between labels', 'a{x="1" y="2"} 1\n'],
    ['a label given twice', 'a{x="1",x="2"} 1\n'],
    ['an unknown escape', 'a{x="\\t"} 1\n'],
    ['no value', 'a{x="1"}\n'],
    ['a value that is not a number', 'a 1,5\n'],
    ['a value that only starts like a number', 'a nanx\n'],
    ['trailing text', 'a 1 2 3\n'],
    ['a timestamp that is not an integer', 'a 1 2.5\n'],
    ['an unknown type', '# TYPE a counters\n'],
    ['a second TYPE', '# TYPE a counter\n# TYPE a counter\n'],
    ['a second HELP', '# HELP a x\n# HELP a y\n'],
    ['a TYPE after the samples', 'a 1\n# TYPE a gauge\n'],
    ['a family in two places', '# TYPE a gauge\na 1\n# TYPE b gauge\nb 1\na{x="2"} 2\n'],
    ['a duplicate series', 'a{x="1",y="2"} 1\na{y="2",x="1"} 2\n'],
    ['a sample foreign to its histogram', '# TYPE h histogram\nh 1\n'],
    ['a negative counter', '# TYPE c counter\nc -1\n'],
    ['a histogram without +Inf', '# TYPE h histogram\nh_bucket{le="1"} 1\nh_sum 1\nh_count 1\n'],
    ['a histogram whose buckets shrink', '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'],
    ['a histogram whose +Inf bucket is not its count', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_sum 1\nh_count 1\n'],
    ['a histogram without its count', '# TYPE h histogram\nh_bucket{le="+Inf"} 1\nh_sum 1\n'],
    ['a histogram bucket with a bad le', '# TYPE h histogram\nh_bucket{le="x"} 1\nh_bucket{le="+Inf"} 1\nh_sum 1\nh_count 1\n'],
  ])('refuses %s', (_, text) => {
    expect(() => parsePrometheusText(text)).toThrow(PrometheusTextError);
  });

  it('names the line at fault', () => {
    expect(() => parsePrometheusText('a 1\nb x\n')).toThrow(/^line 2: invalid sample value "x"$/);
  });

  it('reads back exactly what prom-client writes, whatever the label values', async () => {
    const labelValue = fc.string({ unit: 'binary', maxLength: 12 });
    // The text format has no negative zero: prom-client writes it as 0.
    const gaugeValue = fc.double().map((x) => x + 0);
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.tuple(labelValue, fc.nat({ max: 1e9 })), { selector: ([v]) => v, maxLength: 5 }),
        fc.uniqueArray(fc.tuple(labelValue, gaugeValue), { selector: ([v]) => v, maxLength: 5 }),
        fc.array(fc.tuple(fc.constantFrom('a', 'b\n"\\'), fc.double({ noNaN: true, min: 0, max: 100 })), { maxLength: 20 }),
        async (counts, gauges, observations) => {
          const registry = new Registry();
          const counter = new Counter({ name: 'c_total', help: 'a counter with \\ and \n', labelNames: ['v'], registers: [registry] });
          const gauge = new Gauge({ name: 'g', help: 'a gauge', labelNames: ['v'], registers: [registry] });
          const histogram = new Histogram({
            name: 'h_seconds',
            help: 'a histogram',
            labelNames: ['v'],
            buckets: [0.5, 10, 50],
            registers: [registry],
          });
          for (const [v, n] of counts) counter.inc({ v }, n);
          for (const [v, x] of gauges) gauge.set({ v }, x);
          for (const [v, x] of observations) histogram.observe({ v }, x);

          const families = parsePrometheusText(await registry.metrics());
          expect(families.get('c_total')?.help).toBe('a counter with \\ and \n');
          for (const [v, n] of counts) expect(sampleOf(families, 'c_total', { v })?.value).toBe(n);
          for (const [v, x] of gauges) expect(sampleOf(families, 'g', { v })?.value).toBe(x);
          for (const v of new Set(observations.map(([label]) => label))) {
            const mine = observations.filter(([label]) => label === v).map(([, x]) => x);
            expect(sampleOf(families, 'h_seconds_count', { v })?.value).toBe(mine.length);
            expect(sampleOf(families, 'h_seconds_bucket', { v, le: '10' })?.value).toBe(mine.filter((x) => x <= 10).length);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
