/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), for tests that
 * scrape the apps: prom-client writes the format but cannot read it, and a lenient reader
 * would let a malformed exposition pass. Anything a Prometheus server would refuse, and a
 * few things it would only tolerate (a family split in two, a sample before its TYPE, a
 * histogram whose buckets do not add up), is an error naming the line.
 */

export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  /** The sample's own name: a histogram's family `x` has samples `x_bucket`, `x_sum` and `x_count`. */
  name: string;
  labels: Record<string, string>;
  value: number;
  timestamp?: number;
}

export interface MetricFamily {
  name: string;
  type: MetricType;
  help?: string;
  samples: Sample[];
}

export class PrometheusTextError extends Error {
  /** `lineNumber` is absent for what only the whole family shows (a histogram that does not add up). */
  constructor(lineNumber: number | null, message: string) {
    super(lineNumber === null ? message : `line ${lineNumber}: ${message}`);
    this.name = 'PrometheusTextError';
  }
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: readonly MetricType[] = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];

/** Samples a family of each type may hold, by suffix of the family's name. */
const SUFFIXES: Record<MetricType, readonly string[]> = {
  counter: [''],
  gauge: [''],
  untyped: [''],
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

/** Parses a whole exposition; families by name, in the order they appear. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const finished = new Set<string>();
  const typed = new Set<string>();
  const series = new Set<string>();
  let current: MetricFamily | null = null;
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  else if (text.length) throw new PrometheusTextError(lines.length, 'the exposition must end with a line feed');

  const familyOf = (name: string, lineNumber: number): MetricFamily => {
    if (current?.name === name) return current;
    if (current) finished.add(current.name);
    if (finished.has(name)) throw new PrometheusTextError(lineNumber, `metric family ${name} appears in two places`);
    const family: MetricFamily = { name, type: 'untyped', samples: [] };
    families.set(name, family);
    current = family;
    return family;
  };

  lines.forEach((line, index) => {
    const n = index + 1;
    if (line.trim() === '') return;
    if (line.startsWith('#')) {
      const meta = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line);
      if (!meta) return;
      const [, keyword, name, rest = ''] = meta;
      if (!METRIC_NAME.test(name)) throw new PrometheusTextError(n, `invalid metric name "${name}"`);
      const family = familyOf(name, n);
      if (keyword === 'HELP') {
        if (family.help !== undefined) throw new PrometheusTextError(n, `second HELP for ${name}`);
        family.help = unescape(rest, n, false);
      } else {
        if (family.samples.length) throw new PrometheusTextError(n, `TYPE of ${name} after its samples`);
        if (typed.has(name)) throw new PrometheusTextError(n, `second TYPE for ${name}`);
        const type = rest.trim() as MetricType;
        if (!TYPES.includes(type)) throw new PrometheusTextError(n, `unknown metric type "${rest.trim()}"`);
        family.type = type;
        typed.add(name);
      }
      return;
    }
    const sample = parseSample(line, n);
    const family = familyOf(familyName(sample.name, current), n);
    if (!SUFFIXES[family.type].some((suffix) => sample.name === family.name + suffix)) {
      throw new PrometheusTextError(n, `sample ${sample.name} does not belong to the ${family.type} ${family.name}`);
    }
    const key = seriesKey(sample);
    if (series.has(key)) throw new PrometheusTextError(n, `duplicate series ${key}`);
    series.add(key);
    family.samples.push(sample);
  });
  for (const family of families.values()) checkFamily(family);
  return families;
}

/** A sample named `x_bucket`, `x_sum` or `x_count` belongs to the family `x` being read when that is a histogram or summary. */
function familyName(sampleName: string, current: MetricFamily | null): string {
  if (current && current.type !== 'untyped' && SUFFIXES[current.type].some((suffix) => sampleName === current.name + suffix))
    return current.name;
  return sampleName;
}

function parseSample(line: string, n: number): Sample {
  const name = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0];
  if (!name) throw new PrometheusTextError(n, 'a sample must start with a metric name');
  let pos = name.length;
  const labels: Record<string, string> = {};
  if (line[pos] === '{') {
    pos++;
    for (;;) {
      if (line[pos] === '}') {
        pos++;
        break;
      }
      const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(pos))?.[0];
      if (!labelName || !LABEL_NAME.test(labelName)) throw new PrometheusTextError(n, `invalid label name at column ${pos + 1}`);
      if (labelName in labels) throw new PrometheusTextError(n, `label ${labelName} given twice`);
      pos += labelName.length;
      if (line.slice(pos, pos + 2) !== '="') throw new PrometheusTextError(n, `expected =" after label ${labelName}`);
      pos += 2;
      let raw = '';
      for (;;) {
        const c = line[pos];
        if (c === undefined) throw new PrometheusTextError(n, `unterminated value of label ${labelName}`);
        if (c === '"') break;
        if (c === '\\') {
          raw += c + (line[pos + 1] ?? '');
          pos += 2;
        } else {
          raw += c;
          pos++;
        }
      }
      labels[labelName] = unescape(raw, n, true);
      pos++;
      if (line[pos] === ',') pos++;
      else if (line[pos] !== '}') throw new PrometheusTextError(n, `expected , or } after label ${labelName}`);
    }
  }
  const rest = line.slice(pos);
  const fields = /^ +(\S+)(?: +(-?\d+))?$/.exec(rest);
  if (!fields) throw new PrometheusTextError(n, `expected a value (and an optional timestamp) after ${name}, got "${rest}"`);
  const sample: Sample = { name, labels, value: parseValue(fields[1], n) };
  if (fields[2] !== undefined) sample.timestamp = Number(fields[2]);
  return sample;
}

function parseValue(text: string, n: number | null): number {
  // Prometheus reads values with Go's ParseFloat, which takes these words in any case (prom-client writes "Nan").
  const special = /^([-+]?)(inf|infinity|nan)$/i.exec(text);
  if (special) return special[2].toLowerCase() === 'nan' ? NaN : special[1] === '-' ? -Infinity : Infinity;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new PrometheusTextError(n, `invalid sample value "${text}"`);
  return Number(text);
}

/** HELP text escapes backslash and line feed; a label value also the double quote. */
function unescape(raw: string, n: number, labelValue: boolean): string {
  return raw.replace(/\\(.?)/g, (_, c: string) => {
    if (c === '\\') return '\\';
    if (c === 'n') return '\n';
    if (c === '"' && labelValue) return '"';
    throw new PrometheusTextError(n, `invalid escape \\${c}`);
  });
}

const seriesKey = (s: Sample): string =>
  `${s.name}{${Object.keys(s.labels)
    .sort()
    .map((k) => `${k}=${JSON.stringify(s.labels[k])}`)
    .join(',')}}`;

/** A histogram's buckets per series are cumulative, end at +Inf, and that bucket equals the count. */
function checkFamily(family: MetricFamily): void {
  if (family.type === 'counter') {
    for (const s of family.samples) if (!(s.value >= 0)) throw new PrometheusTextError(null, `counter ${seriesKey(s)} is ${s.value}`);
  }
  if (family.type !== 'histogram') return;
  const series = new Map<string, { buckets: { le: number; value: number }[]; count?: number; sum?: number }>();
  for (const s of family.samples) {
    const { le, ...rest } = s.labels;
    const key = seriesKey({ ...s, name: family.name, labels: rest });
    const entry = series.get(key) ?? { buckets: [] };
    series.set(key, entry);
    if (s.name.endsWith('_bucket')) {
      if (le === undefined) throw new PrometheusTextError(null, `histogram bucket ${seriesKey(s)} has no le label`);
      entry.buckets.push({ le: parseValue(le, null), value: s.value });
    } else if (s.name.endsWith('_count')) entry.count = s.value;
    else entry.sum = s.value;
  }
  for (const [key, { buckets, count, sum }] of series) {
    if (count === undefined || sum === undefined) throw new PrometheusTextError(null, `histogram ${key} lacks its _count or _sum`);
    const sorted = [...buckets].sort((a, b) => a.le - b.le);
    if (sorted.at(-1)?.le !== Infinity) throw new PrometheusTextError(null, `histogram ${key} has no +Inf bucket`);
    sorted.forEach((b, i) => {
      if (i > 0 && b.value < sorted[i - 1].value)
        throw new PrometheusTextError(null, `histogram ${key}: bucket le=${b.le} holds less than the one before`);
    });
    if (sorted.at(-1)?.value !== count) throw new PrometheusTextError(null, `histogram ${key}: the +Inf bucket is not the count`);
  }
}

/** The one sample of `name` whose labels include `labels`; undefined when there is none, an error when several match. */
export function sampleOf(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): Sample | undefined {
  const matches = [...families.values()]
    .flatMap((f) => f.samples)
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (matches.length > 1) throw new Error(`${matches.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return matches[0];
}
