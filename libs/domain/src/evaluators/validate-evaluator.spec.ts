import { validateHeaderValue } from 'node:http';
import fc from 'fast-check';
import { DomainError } from '../errors';
import { EVALUATOR_LIMITS } from '../limits';
import type { EvaluatorSettings } from './evaluator';
import { validateEvaluatorInput } from './validate-evaluator';

const CREATE = { partial: false, requireHttps: false, refuseNonPublicHosts: false } as const;
const UPDATE = { partial: true, requireHttps: false, refuseNonPublicHosts: false } as const;
const URL_ = 'https://eval.example.com/score';
/** What every refused value of the header `X-Key` is told. */
const BAD_HEADER_VALUE =
  'headers.X-Key: must be a string of at most 4096 Latin-1 characters without control characters such as CR, LF or NUL';

/** The message of the validation error `run` throws; fails when it throws anything else or nothing. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect(err).toMatchObject({ code: 'VALIDATION_ERROR' });
    return (err as DomainError).message;
  }
  throw new Error('expected a validation error');
}

const settings = (over: Partial<EvaluatorSettings> = {}): EvaluatorSettings => ({
  name: 'relevance',
  kind: 'webhook',
  url: URL_,
  judge: null,
  headers: {},
  timeoutMs: 10_000,
  retries: 1,
  filter: { spanTypes: ['LLM'], names: [], sampleRate: 1, tags: [], environments: [] },
  enabled: true,
  target: 'span',
  quietSeconds: 30,
  ...over,
});

describe(validateEvaluatorInput.name, () => {
  describe('on create', () => {
    it('fills every default of SPEC 2.6 and CONTRACT', () => {
      expect(validateEvaluatorInput({ name: 'relevance', url: URL_ }, CREATE)).toEqual(settings());
    });

    it('treats null as absent, as everywhere in the API', () => {
      const input = { name: 'relevance', url: URL_, headers: null, timeoutMs: null, retries: null, filter: null, enabled: null };
      expect(validateEvaluatorInput(input, CREATE)).toEqual(settings());
      expect(
        validateEvaluatorInput({ name: 'relevance', url: URL_, filter: { spanTypes: null, names: null, sampleRate: null } }, CREATE),
      ).toEqual(settings());
    });

    it('fills the filter members left out and keeps the ones given', () => {
      expect(validateEvaluatorInput({ name: 'n', url: URL_, filter: { sampleRate: 0.25 } }, CREATE).filter).toEqual({
        spanTypes: ['LLM'],
        names: [],
        sampleRate: 0.25,
        tags: [],
        environments: [],
      });
    });

    it('takes a trace target with its quiet window and trace filter, for any evaluator', () => {
      const result = validateEvaluatorInput(
        { name: 'n', url: URL_, target: 'trace', quietSeconds: 5, filter: { tags: ['prod', 'prod'], environments: ['live'] } },
        CREATE,
      );
      expect(result).toMatchObject({ target: 'trace', quietSeconds: 5, filter: { tags: ['prod'], environments: ['live'] } });
      expect(validateEvaluatorInput({ quietSeconds: 3_600 }, UPDATE)).toEqual({ quietSeconds: 3_600 });
    });

    it('trims the name, upper-cases span types and drops repeats', () => {
      const result = validateEvaluatorInput(
        { name: '  relevance ', url: URL_, filter: { spanTypes: ['llm', ' Tool', 'LLM', 'MY_TYPE'], names: ['a', 'b', 'a'] } },
        CREATE,
      );
      expect(result).toMatchObject({ name: 'relevance', filter: { spanTypes: ['LLM', 'TOOL', 'MY_TYPE'], names: ['a', 'b'] } });
    });

    it('keeps the URL as it will be called', () => {
      expect(validateEvaluatorInput({ name: 'n', url: 'HTTPS://Eval.Example.com' }, CREATE).url).toBe('https://eval.example.com/');
    });

    it('accepts the limits themselves', () => {
      const input = {
        name: 'x'.repeat(200),
        url: URL_,
        headers: Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`X-H${i}`, 'v'.repeat(4_096)])),
        timeoutMs: 30_000,
        retries: 0,
        filter: {
          spanTypes: ['A'.repeat(64)],
          names: Array.from({ length: 100 }, (_, i) => `n${i}`),
          sampleRate: 0,
          tags: Array.from({ length: 100 }, (_, i) => `t${i}`),
          environments: ['live'],
        },
        enabled: false,
        target: 'trace',
        quietSeconds: 3_600,
      };
      expect(validateEvaluatorInput(input, CREATE)).toEqual({ ...input, kind: 'webhook', judge: null });
    });

    it.each([
      ['no name', { url: URL_ }, 'name: is required'],
      ['no url', { name: 'n' }, 'url: is required'],
      ['a blank name', { name: '   ', url: URL_ }, 'name: must be a non-blank string of at most 200 characters'],
      ['a name too long', { name: 'x'.repeat(201), url: URL_ }, 'name: must be a non-blank string of at most 200 characters'],
      ['a relative url', { name: 'n', url: '/score' }, 'url: must be an absolute http or https URL of at most 2048 characters'],
      [
        'another scheme',
        { name: 'n', url: 'ftp://eval.example.com' },
        'url: must be an absolute http or https URL of at most 2048 characters',
      ],
      [
        'a url too long',
        { name: 'n', url: `${URL_}?q=${'x'.repeat(2_048)}` },
        'url: must be an absolute http or https URL of at most 2048 characters',
      ],
      [
        'credentials in the url',
        { name: 'n', url: 'https://user:secret@eval.example.com' },
        'url: must not carry credentials; send them in headers (for example Authorization)',
      ],
      ['an unknown target', { name: 'n', url: URL_, target: 'session' }, 'target: must be one of span, trace'],
      ['a quiet window below 5 s', { name: 'n', url: URL_, quietSeconds: 4 }, 'quietSeconds: must be an integer from 5 to 3600'],
      ['a quiet window above an hour', { name: 'n', url: URL_, quietSeconds: 3_601 }, 'quietSeconds: must be an integer from 5 to 3600'],
      ['a fractional quiet window', { name: 'n', url: URL_, quietSeconds: 7.5 }, 'quietSeconds: must be an integer from 5 to 3600'],
      ['a blank tag', { name: 'n', url: URL_, filter: { tags: [''] } }, 'filter.tags[0]: must be a non-empty string'],
      ['a timeout below 1000', { name: 'n', url: URL_, timeoutMs: 999 }, 'timeoutMs: must be an integer from 1000 to 30000'],
      ['a timeout above 30000', { name: 'n', url: URL_, timeoutMs: 30_001 }, 'timeoutMs: must be an integer from 1000 to 30000'],
      ['a fractional timeout', { name: 'n', url: URL_, timeoutMs: 1500.5 }, 'timeoutMs: must be an integer from 1000 to 30000'],
      ['a timeout as a string', { name: 'n', url: URL_, timeoutMs: '5000' }, 'timeoutMs: must be an integer from 1000 to 30000'],
      ['retries above 5', { name: 'n', url: URL_, retries: 6 }, 'retries: must be an integer from 0 to 5'],
      ['negative retries', { name: 'n', url: URL_, retries: -1 }, 'retries: must be an integer from 0 to 5'],
      ['a NUL in the name', { name: 'rele\u0000vance', url: URL_ }, 'name: must not contain NUL characters or unpaired UTF-16 surrogates'],
      [
        'an unpaired surrogate in a span name of the filter',
        { name: 'n', url: URL_, filter: { names: ['chat', 'x\udc00'] } },
        'filter.names[1]: must not contain NUL characters or unpaired UTF-16 surrogates',
      ],
      [
        'headers as an array',
        { name: 'n', url: URL_, headers: ['Authorization: x'] },
        'headers: must be an object of header names to string values',
      ],
      [
        'too many headers',
        { name: 'n', url: URL_, headers: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`X-H${i}`, 'v'])) },
        'headers: must hold at most 20 headers',
      ],
      [
        'a header name that is not a token',
        { name: 'n', url: URL_, headers: { 'X Key': 'v' } },
        'headers: "X Key" is not a valid HTTP header name',
      ],
      ['a header value with a line break', { name: 'n', url: URL_, headers: { 'X-Key': 'a\r\nInjected: b' } }, BAD_HEADER_VALUE],
      ['a header value beyond Latin-1', { name: 'n', url: URL_, headers: { 'X-Key': 'Bearer ä€' } }, BAD_HEADER_VALUE],
      ['a header value with an unpaired surrogate', { name: 'n', url: URL_, headers: { 'X-Key': 'a\ud800' } }, BAD_HEADER_VALUE],
      ['a header value with a control character', { name: 'n', url: URL_, headers: { 'X-Key': 'a\u0001b' } }, BAD_HEADER_VALUE],
      ['a header value that is a number', { name: 'n', url: URL_, headers: { 'X-Key': 1 } }, BAD_HEADER_VALUE],
      ['a header value too long', { name: 'n', url: URL_, headers: { 'X-Key': 'v'.repeat(4_097) } }, BAD_HEADER_VALUE],
      [
        'a header the call sets itself',
        { name: 'n', url: URL_, headers: { 'Content-Length': '3' } },
        'headers.Content-Length: is set by the evaluator call itself',
      ],
      [
        'a header that signs the call',
        { name: 'n', url: URL_, headers: { 'Webhook-Signature': 'v1,forged' } },
        'headers.Webhook-Signature: is set by the evaluator call itself',
      ],
      [
        'one header in two spellings',
        { name: 'n', url: URL_, headers: { 'X-Key': 'a', 'x-key': 'b' } },
        'headers.x-key: is given twice (header names are case-insensitive)',
      ],
      [
        'a filter that is not an object',
        { name: 'n', url: URL_, filter: 'LLM' },
        'filter: must be an object with spanTypes, names, sampleRate, tags, environments',
      ],
      [
        'no span types',
        { name: 'n', url: URL_, filter: { spanTypes: [] } },
        'filter.spanTypes: must be a non-empty array of span types such as LLM, TOOL or AGENT',
      ],
      [
        'a span type that is not a word',
        { name: 'n', url: URL_, filter: { spanTypes: ['LLM', 'tool call'] } },
        expect.stringMatching(/^filter\.spanTypes\[1\]: must be a span type/),
      ],
      ['a span name that is not a string', { name: 'n', url: URL_, filter: { names: [7] } }, 'filter.names[0]: must be a non-empty string'],
      [
        'too many span names',
        { name: 'n', url: URL_, filter: { names: Array.from({ length: 101 }, (_, i) => `n${i}`) } },
        'filter.names: must be an array of at most 100 span names',
      ],
      ['a sample rate above 1', { name: 'n', url: URL_, filter: { sampleRate: 1.5 } }, 'filter.sampleRate: must be a number from 0 to 1'],
      [
        'a sample rate as a string',
        { name: 'n', url: URL_, filter: { sampleRate: '0.5' } },
        'filter.sampleRate: must be a number from 0 to 1',
      ],
      [
        'an unknown filter member',
        { name: 'n', url: URL_, filter: { spanType: ['LLM'] } },
        'filter: unknown field "spanType"; the fields are spanTypes, names, sampleRate, tags, environments',
      ],
      ['enabled as a string', { name: 'n', url: URL_, enabled: 'yes' }, 'enabled: must be true or false'],
      [
        'unknown fields',
        { name: 'n', url: URL_, timeout: 5000, secret: 1 },
        'unknown fields "timeout", "secret"; the fields are name, kind, url, judge, headers, timeoutMs, retries, filter, enabled, target, quietSeconds',
      ],
      [
        'something other than an object',
        'relevance',
        'must be an object with name, kind, url, judge, headers, timeoutMs, retries, filter, enabled, target, quietSeconds',
      ],
    ])('refuses %s, naming the field', (_, input, message) => {
      expect(refusal(() => validateEvaluatorInput(input, CREATE))).toEqual(message);
    });

    it('takes http outside production only', () => {
      const input = { name: 'n', url: 'http://localhost:8080/score' };
      expect(validateEvaluatorInput(input, CREATE).url).toBe('http://localhost:8080/score');
      expect(refusal(() => validateEvaluatorInput(input, { partial: false, requireHttps: true, refuseNonPublicHosts: true }))).toBe(
        'url: must be an https URL in production',
      );
      expect(validateEvaluatorInput({ ...input, url: URL_ }, { partial: false, requireHttps: true, refuseNonPublicHosts: true }).url).toBe(
        URL_,
      );
    });

    it('refuses addresses that are not public where private networks are off, naming url, on create and update alike', () => {
      const rules = { requireHttps: true, refuseNonPublicHosts: true };
      const message = /^url: must not be a private, loopback, link-local or unspecified address \(127\.0\.0\.1\)/;
      expect(refusal(() => validateEvaluatorInput({ name: 'n', url: 'https://2130706433/score' }, { partial: false, ...rules }))).toMatch(
        message,
      );
      expect(refusal(() => validateEvaluatorInput({ url: 'https://0177.0.0.1/' }, { partial: true, ...rules }))).toMatch(message);
      expect(validateEvaluatorInput({ name: 'n', url: 'https://127.0.0.1/score' }, CREATE).url).toBe('https://127.0.0.1/score');
    });

    it('bounds header names, naming the header cut short', () => {
      const name = `X-${'k'.repeat(EVALUATOR_LIMITS.headerNameLength)}`;
      expect(refusal(() => validateEvaluatorInput({ name: 'n', url: URL_, headers: { [name]: 'v' } }, CREATE))).toBe(
        `headers: header names must be at most 256 characters ("${name.slice(0, 64)}…")`,
      );
      const longest = 'k'.repeat(EVALUATOR_LIMITS.headerNameLength);
      expect(validateEvaluatorInput({ name: 'n', url: URL_, headers: { [longest]: 'v' } }, CREATE).headers).toEqual({ [longest]: 'v' });
    });
  });

  describe('on update', () => {
    it('checks and returns only the fields given, filter members included', () => {
      expect(validateEvaluatorInput({ timeoutMs: 2_000 }, UPDATE)).toEqual({ timeoutMs: 2_000 });
      expect(validateEvaluatorInput({ filter: { sampleRate: 0.5 }, enabled: false }, UPDATE)).toEqual({
        filter: { sampleRate: 0.5 },
        enabled: false,
      });
    });

    it('applies the same rules to what is given', () => {
      expect(refusal(() => validateEvaluatorInput({ retries: 9 }, UPDATE))).toBe('retries: must be an integer from 0 to 5');
      expect(
        refusal(() =>
          validateEvaluatorInput({ url: 'http://eval.example.com' }, { partial: true, requireHttps: true, refuseNonPublicHosts: true }),
        ),
      ).toBe('url: must be an https URL in production');
    });

    it('refuses an update that changes nothing', () => {
      expect(refusal(() => validateEvaluatorInput({ name: null }, UPDATE))).toBe(
        'nothing to change: give at least one of name, kind, url, judge, headers, timeoutMs, retries, filter, enabled, target, quietSeconds',
      );
    });
  });

  describe('properties', () => {
    const spanType = fc.stringMatching(/^[A-Z][A-Z0-9_]{0,20}$/);
    const headerName = fc.stringMatching(/^X-[A-Za-z0-9-]{1,20}$/);
    /** Tab, printable ASCII and the upper half of Latin-1: what an HTTP header value may hold. */
    const headerValue = fc.string({
      unit: fc.oneof(
        fc.constant('\t'),
        fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
        fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
      ),
      maxLength: 50,
    });
    const validSettings: fc.Arbitrary<EvaluatorSettings> = fc.record({
      name: fc.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim() === s && s.length > 0),
      kind: fc.constant('webhook' as const),
      judge: fc.constant(null),
      url: fc
        .webUrl({ validSchemes: ['https'] })
        .map((u) => new URL(u).href)
        .filter((u) => u.length <= EVALUATOR_LIMITS.urlLength && !new URL(u).username && !new URL(u).password),
      headers: fc
        .uniqueArray(fc.tuple(headerName, headerValue), { maxLength: 20, selector: ([n]) => n.toLowerCase() })
        .map(Object.fromEntries),
      timeoutMs: fc.integer({ min: 1_000, max: 30_000 }),
      retries: fc.integer({ min: 0, max: 5 }),
      filter: fc.record({
        spanTypes: fc.uniqueArray(spanType, { minLength: 1, maxLength: 8 }),
        names: fc.uniqueArray(fc.string({ minLength: 1 }), { maxLength: 100 }),
        sampleRate: fc.double({ min: 0, max: 1, noNaN: true }),
        tags: fc.uniqueArray(fc.string({ minLength: 1 }), { maxLength: 100 }),
        environments: fc.uniqueArray(fc.string({ minLength: 1 }), { maxLength: 100 }),
      }),
      enabled: fc.boolean(),
      target: fc.constantFrom('span' as const, 'trace' as const),
      quietSeconds: fc.integer({ min: 5, max: 3_600 }),
    });

    it('gives back valid settings unchanged, whole on create and field by field on update', () => {
      fc.assert(
        fc.property(
          validSettings,
          fc.subarray(['name', 'url', 'headers', 'timeoutMs', 'retries', 'filter', 'enabled', 'target', 'quietSeconds'] as const, {
            minLength: 1,
          }),
          (valid, keys) => {
            expect(validateEvaluatorInput(valid, CREATE)).toEqual(valid);
            const patch = Object.fromEntries(keys.map((k) => [k, valid[k]]));
            expect(validateEvaluatorInput(patch, UPDATE)).toEqual(patch);
          },
        ),
      );
    });

    it("accepts a header value exactly when Node's HTTP client can send it", () => {
      const sendable = (value: string) => {
        try {
          validateHeaderValue('x-key', value);
          return true;
        } catch {
          return false;
        }
      };
      fc.assert(
        fc.property(fc.oneof(headerValue, fc.string({ unit: 'binary', maxLength: 20 })), (value) => {
          const accepted = (() => {
            try {
              validateEvaluatorInput({ headers: { 'X-Key': value } }, UPDATE);
              return true;
            } catch {
              return false;
            }
          })();
          expect(accepted).toBe(sendable(value));
        }),
      );
    });

    it('answers any JSON either with settings inside the limits or with a validation error naming a field', () => {
      const fieldValue = fc.oneof(
        fc.jsonValue(),
        fc.integer({ min: -10, max: 40_000 }),
        fc.double({ min: -1, max: 2, noNaN: true }),
        fc.constantFrom(URL_, 'http://x', 'LLM'),
      );
      const input = fc.oneof(
        fc.jsonValue(),
        fc.record(
          {
            name: fieldValue,
            url: fc.oneof(fieldValue, fc.constant(URL_)),
            headers: fc.oneof(fieldValue, fc.dictionary(fc.string({ maxLength: 10 }), fieldValue, { maxKeys: 3 })),
            timeoutMs: fieldValue,
            retries: fieldValue,
            filter: fc.oneof(
              fieldValue,
              fc.record({ spanTypes: fieldValue, names: fieldValue, sampleRate: fieldValue }, { requiredKeys: [] }),
            ),
            enabled: fc.oneof(fieldValue, fc.boolean()),
          },
          { requiredKeys: [] },
        ),
      );
      const fieldAtFault =
        /^(unknown fields? .+|must be an object .+|nothing to change: .+|(name|url|headers|timeoutMs|retries|filter|enabled)([.[][^:]*)?: .+)$/s;
      fc.assert(
        fc.property(input, fc.boolean(), (value, partial) => {
          let result: unknown;
          try {
            result = partial
              ? validateEvaluatorInput(value, { partial: true, requireHttps: true, refuseNonPublicHosts: true })
              : validateEvaluatorInput(value, { partial: false, requireHttps: true, refuseNonPublicHosts: true });
          } catch (err) {
            expect(err).toBeInstanceOf(DomainError);
            expect((err as DomainError).message).toMatch(fieldAtFault);
            return;
          }
          if (partial) return;
          const s = result as EvaluatorSettings;
          expect(s.timeoutMs).toBeGreaterThanOrEqual(1_000);
          expect(s.timeoutMs).toBeLessThanOrEqual(30_000);
          expect(s.retries).toBeGreaterThanOrEqual(0);
          expect(s.retries).toBeLessThanOrEqual(5);
          expect(new URL(s.url!).protocol).toBe('https:');
          expect(s.filter.spanTypes.length).toBeGreaterThan(0);
          expect(s.filter.sampleRate).toBeGreaterThanOrEqual(0);
          expect(s.filter.sampleRate).toBeLessThanOrEqual(1);
        }),
      );
    });
  });
});
