import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { dbl, exportOf, span } from '@app/otlp/testing/otlp-builders';
import {
  DATASET_ITEM_STATUSES,
  EVALUATOR_KINDS,
  EVALUATOR_TARGETS,
  EVAL_RUN_STATUSES,
  FILTER_VALUE_FIELDS,
  JUDGE_SCORE_TYPES,
  MONITOR_COMPARISONS,
  MONITOR_METRICS,
  QUEUE_ITEM_STATUSES,
  SCORE_DATA_TYPES,
  TIER_OPERATORS,
} from '@app/domain';
import { type RpcServices, buildRouter } from '../apps/api/src/rpc/router';
import { type Session, type Tenant, bootstrap, data, login, mutate, rawRequest, send } from './support/api';
import { type Stack, UNLIMITED_CREATIONS, runCli, startStack } from './support/stack';

// ../shared/BAD_INPUTS.md over HTTP: what a client sends may be refused, never answered 5xx.

describe('bad inputs over HTTP', () => {
  let stack: Stack;
  let tenant: Tenant;
  let session: Session;

  const request = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${stack.baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${tenant.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null, seq: res.headers.get('spanlog-seq') };
  };

  beforeAll(async () => {
    stack = await startStack(UNLIMITED_CREATIONS);
    tenant = await bootstrap(stack, 'bad-inputs@spanlog.test', 'Bad inputs', 'main', 'pro');
    session = await login(stack, 'bad-inputs@spanlog.test');
  }, 120_000);

  afterAll(() => stack?.stop());

  describe('cost, token and time ranges', () => {
    it('refuses an overflowing cost and a year-9999 trace natively, maps no such OTLP cost, and the trace list keeps answering', async () => {
      const at = '2026-03-01T10:00:00Z';
      const native = await request('POST', '/api/v1/traces', {
        batch: [
          { id: 'far', type: 'trace-create', timestamp: at, body: { id: 'far-future', name: 'pinned', timestamp: '9999-12-31T00:00:00Z' } },
          { id: 'ok', type: 'trace-create', timestamp: at, body: { id: 'costly', name: 'costly' } },
          {
            id: 'huge',
            type: 'generation-create',
            timestamp: at,
            body: { id: 'g1', traceId: 'costly', name: 'chat', startTime: at, cost: 1.7976931348623157e308 },
          },
          {
            id: 'fine',
            type: 'generation-create',
            timestamp: at,
            body: { id: 'g2', traceId: 'costly', name: 'chat', startTime: at, cost: 0.5 },
          },
        ],
      });
      expect(native.status).toBe(201);
      expect(native.body).toEqual({
        accepted: 2,
        errors: [
          {
            index: 0,
            id: 'far',
            code: 'VALIDATION_ERROR',
            message: expect.stringMatching(/^batch\[0\]\.body\.timestamp: must be an ISO 8601 timestamp from 1970/),
          },
          { index: 2, id: 'huge', code: 'VALIDATION_ERROR', message: 'batch[2].body.cost: must be a number from 0 to 1000000' },
        ],
      });

      const traceId = randomBytes(16).toString('hex');
      const costly = (spanId: string) =>
        span({ traceId, spanId, parentSpanId: '', attributes: [{ key: 'gen_ai.usage.cost', value: dbl(1e308) }] });
      const otlp = await request('POST', '/api/v1/otel/traces', exportOf([costly('00000000000000a1'), costly('00000000000000a2')]));
      expect(otlp).toMatchObject({ status: 200, body: { accepted: 2 } });

      const list = await request('GET', `/api/v1/traces?minSeq=${otlp.seq}`);
      expect(list.status).toBe(200);
      expect(
        list.body.data.map((t: { externalId: string | null; otelTraceId: string | null; totalCost: number | null }) => [
          t.externalId ?? t.otelTraceId,
          t.totalCost,
        ]),
      ).toEqual(
        expect.arrayContaining([
          [traceId, null],
          ['costly', 0.5],
        ]),
      );
      const trace = await request('GET', `/api/v1/traces/${traceId}`);
      expect(
        trace.body.spans.map((s: { cost: number | null; attributes: Record<string, unknown> }) => [
          s.cost,
          s.attributes['gen_ai.usage.cost'],
        ]),
      ).toEqual([
        [null, 1e308],
        [null, 1e308],
      ]);
    });
  });

  describe('malformed input is a 400 naming the field', () => {
    const UNSTORABLE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

    it.each(['name', 'userId', 'tags', 'model', 'spanType'])('GET /api/v1/traces with NUL in %s', async (field) => {
      expect(await request('GET', `/api/v1/traces?${field}=a%00b`)).toMatchObject({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: `${field}: ${UNSTORABLE}` } },
      });
    });

    it.each(['2024-W01-1', '2024-01-01T10Z', '2024-01-01T00:00:00,5Z'])('GET /api/v1/traces with the time %s', async (time) => {
      for (const field of ['fromTimestamp', 'toTimestamp']) {
        const res = await request('GET', `/api/v1/traces?${field}=${encodeURIComponent(time)}`);
        expect(res).toMatchObject({
          status: 400,
          body: {
            error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(new RegExp(`^${field}: must be an ISO 8601 timestamp`)) },
          },
        });
      }
    });

    it('GET /api/v1/traces with a cursor whose time was tampered with', async () => {
      const at = '2026-03-02T10:00:00Z';
      const batch = ['page-1', 'page-2'].map((id) => ({ id, type: 'trace-create', timestamp: at, body: { id, name: id } }));
      const { seq } = await request('POST', '/api/v1/traces', { batch });
      const first = await request('GET', `/api/v1/traces?limit=1&minSeq=${seq}`);
      const [time, id] = JSON.parse(Buffer.from(first.body.meta.nextCursor, 'base64url').toString('utf8')) as [string, string];
      const cursor = Buffer.from(JSON.stringify([time.replace(/^(\d{4})-\d{2}/, '$1-13'), id])).toString('base64url');
      expect(await request('GET', `/api/v1/traces?limit=1&cursor=${cursor}`)).toMatchObject({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: 'cursor: not a cursor returned by this endpoint' } },
      });
    });

    it('POST /api/v1/auth/login with NUL in the e-mail', async () => {
      const res = await send(stack, 'POST', '/api/v1/auth/login', { body: { email: 'bad-inputs@spanlog.test\u0000', password: 'x' } });
      expect(res).toEqual({ status: 400, body: { data: null, error: { code: 'VALIDATION_ERROR', message: `email: ${UNSTORABLE}` } } });
    });

    it.each([
      ['organization.create', () => ({ name: 'org\u0000' })],
      ['project.create', () => ({ orgId: tenant.orgId, name: 'project\u0000' })],
      ['apiKey.create', () => ({ projectId: tenant.projectId, name: 'key\u0000' })],
    ])('%s with NUL in the name', async (procedure, input) => {
      const res = await mutate(stack, session.access_token, procedure, input());
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ message: `name: ${UNSTORABLE}`, data: { code: 'BAD_REQUEST' } });
    });

    // Settings a project keeps: each text field refused by name rather than failing its insert (found by the RPC fuzz below).
    const monitor = { name: 'm', metric: 'calls', windowSeconds: 300, comparison: '>', threshold: 1 };
    const model = (fields: object) => ({ modelName: 'm', matchPattern: `^m-${randomUUID()}$`, prices: { input: 0.1 }, ...fields });
    const tier = {
      name: 't',
      priority: 1,
      conditions: [{ usageDetailPattern: 'input', operator: 'gt', value: 1 }],
      prices: { input: 0.2 },
    };
    it.each([
      ['dataset.create', 'description', () => ({ name: 'described', description: 'a\u0000b' })],
      ['monitor.create', 'input.name', () => ({ ...monitor, name: 'a\u0000b' })],
      ['monitor.create', 'input.filter.model', () => ({ ...monitor, filter: { model: 'a\u0000b' } })],
      ['monitor.create', 'input.scoreName', () => ({ ...monitor, metric: 'score_mean', scoreName: 'a\u0000b' })],
      ['model.create', 'modelName', () => model({ modelName: 'a\u0000b' })],
      ['model.create', 'matchPattern', () => model({ matchPattern: '^a\u0000b$' })],
      ['model.create', 'tiers[0].name', () => model({ tiers: [{ ...tier, name: 'a\ud800b' }] })],
    ])('%s with an unstorable %s', async (procedure, field, input) => {
      const res = await mutate(stack, session.access_token, procedure, { projectId: tenant.projectId, ...input() });
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ message: `${field}: ${UNSTORABLE}`, data: { code: 'BAD_REQUEST' } });
    });

    it.each([
      ['/api/v1/datasets', 'description', { name: 'described', description: 'a\u0000b' }],
      ['/api/public/models', 'modelName', { modelName: 'a\u0000b', matchPattern: '^nul$', unit: 'TOKENS', inputPrice: 1 }],
    ])('POST %s with an unstorable %s', async (path, field, body) => {
      expect(await request('POST', path, body)).toMatchObject({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: `${field}: ${UNSTORABLE}` } },
      });
    });

    // Names and ids a route's path looks up: no stored one holds NUL, and Postgres refuses it in a query (found by a probe of every route).
    it.each([
      ['GET', '/api/v1/datasets/a%00b', 'name'],
      ['GET', '/api/v1/datasets/any/runs/a%00b', 'runName'],
      ['GET', '/api/public/v2/datasets/a%00b', 'name'],
      ['GET', '/api/public/datasets/a%00b/runs', 'datasetName'],
      ['GET', '/api/public/datasets/any/runs/a%00b', 'runName'],
      ['GET', '/api/public/dataset-items/a%00b', 'id'],
      ['GET', '/api/public/models/a%00b', 'id'],
      ['DELETE', '/api/public/models/a%00b', 'id'],
    ])('%s %s: the path parameter %s holding NUL', async (method, path, what) => {
      expect(await request(method, path)).toMatchObject({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: `${what}: ${UNSTORABLE}` } },
      });
    });
  });

  /**
   * Every route the OpenAPI document lists, walked: NUL, a lone surrogate or a byte sequence that
   * is no UTF-8 in each path and query parameter; NUL, a lone surrogate or a value nested 10,000
   * deep in place of each string, and numbers out of every range in place of each number, of a
   * body sampled from the route's schema. Nothing is answered 5xx, and nothing accepted is
   * dead-lettered by the processor (a probe found dataset and model lookups, and score names).
   */
  describe('every route of the OpenAPI document', () => {
    interface Schema {
      type?: string | string[];
      enum?: unknown[];
      anyOf?: Schema[];
      oneOf?: Schema[];
      properties?: Record<string, Schema>;
      items?: Schema;
      minimum?: number;
    }
    interface Operation {
      parameters?: { in: string; name: string }[];
      requestBody?: { content: Record<string, { schema: Schema }> };
    }
    const BAD_PARAMS = ['%00', 'a%00b', '%ED%A0%80', '%C0%80'];
    /**
     * What each leaf of a body is replaced with, by the leaf's type, as JSON text: for strings
     * NUL, a lone surrogate and a value nested 10,000 deep (JSON.parse takes it, recursive code
     * and jsonb do not, BAD_INPUTS 4); for numbers past a double, past 2^53 (BAD_INPUTS 1), past a
     * Postgres integer, negative, fractional, subnormal.
     */
    const BAD_LEAVES = {
      string: [...['a\u0000b', 'a\ud800b', '\u0000'].map((text) => JSON.stringify(text)), `${'['.repeat(10_000)}${']'.repeat(10_000)}`],
      number: ['1e309', '-1e308', '9007199254740993', '2147483648', '-1', '0.5', '1e-320'],
    } as const;
    /** A body with every property the schema names, each its first choice. */
    const sample = (schema: Schema | undefined, depth = 0): unknown => {
      if (!schema || depth > 6) return 'x';
      const choice = schema.anyOf?.[0] ?? schema.oneOf?.[0];
      if (choice) return sample(choice, depth + 1);
      if (schema.enum) return schema.enum[0];
      const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
      if (type === 'object' || schema.properties)
        return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sample(v, depth + 1)]));
      if (type === 'array') return [sample(schema.items, depth + 1)];
      if (type === 'number' || type === 'integer') return schema.minimum ?? 1;
      if (type === 'boolean') return true;
      return 'x';
    };
    /** Where `value` holds a leaf of that type. */
    const pathsOf = (type: keyof typeof BAD_LEAVES, value: unknown, at: string[] = []): string[][] =>
      typeof value === type
        ? [at]
        : value !== null && typeof value === 'object'
          ? Object.entries(value).flatMap(([k, v]) => pathsOf(type, v, [...at, k]))
          : [];
    /** `value` as JSON text with the leaf at `at` replaced by the JSON text `leaf`. */
    const withLeaf = (value: unknown, at: string[], leaf: string): string => {
      const copy = structuredClone(value) as Record<string, unknown>;
      let holder = copy;
      for (const key of at.slice(0, -1)) holder = holder[key] as Record<string, unknown>;
      holder[at[at.length - 1]] = 'LEAF-HERE';
      return JSON.stringify(copy).replace('"LEAF-HERE"', leaf);
    };

    /** Valid bodies of the ingestion routes, so that what a bad string leaves acceptable reaches the processor. */
    const at = new Date().toISOString();
    const batch = {
      batch: [
        {
          id: 'w1',
          type: 'trace-create',
          timestamp: at,
          body: { id: 'walked', name: 'n', userId: 'u', sessionId: 's', tags: ['t'], metadata: { k: 'v' }, input: 'i', output: 'o' },
        },
        {
          id: 'w2',
          type: 'generation-create',
          timestamp: at,
          body: {
            id: 'walked-call',
            traceId: 'walked',
            name: 'g',
            model: 'gpt-4o-mini',
            startTime: at,
            input: [{ role: 'user', content: 'c' }],
            output: { role: 'assistant', content: 'a' },
            usage: { input: 1, output: 1 },
          },
        },
        { id: 'w3', type: 'event-create', timestamp: at, body: { id: 'walked-event', traceId: 'walked', name: 'e', statusMessage: 'm' } },
        { id: 'w4', type: 'score-create', timestamp: at, body: { traceId: 'walked', name: 's', value: 1, comment: 'c' } },
      ],
    };
    const BODIES: Record<string, unknown> = {
      'POST /api/v1/traces': batch,
      'POST /api/public/ingestion': batch,
      'POST /api/v1/scores': { traceId: 'walked', name: 's', value: 'v', comment: 'c', metadata: { k: 'v' } },
      'POST /api/v1/otel/v1/traces': exportOf([
        span({ name: 'walked', attributes: [{ key: 'input.value', value: { stringValue: 'i' } }] }),
      ]),
    };

    it('answers NUL, broken text, deep nesting and numbers out of range in any parameter or body value without a 5xx, and the processor applies all it took', async () => {
      const { body: document } = await request('GET', '/api/v1/openapi.json');
      await request('POST', '/api/v1/datasets', { name: 'walked' });
      const failures: string[] = [];
      let accepted = 0;
      /** `body` as JSON text. */
      const call = async (method: string, path: string, body?: string) => {
        const res = await fetch(`${stack.baseUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${tenant.apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          body,
        });
        const text = await res.text();
        if (res.status >= 500) failures.push(`${method} ${path} ${body?.slice(0, 300) ?? ''} answered ${res.status}: ${text}`);
        if (res.headers.has('spanlog-seq')) accepted++;
      };
      const paths = document.paths as Record<string, Record<string, Operation>>;
      for (const [template, operations] of Object.entries(paths)) {
        for (const [method, operation] of Object.entries(operations)) {
          if (/\/auth\/|\/mcp/.test(template)) continue;
          const parameters = operation.parameters ?? [];
          const pathOf = (bad?: { name: string; value: string }) =>
            template.replace(/\{([^}]+)\}/g, (_, name: string) => (bad?.name === name ? bad.value : 'walked'));
          const schema = operation.requestBody && Object.values(operation.requestBody.content)[0].schema;
          const body = BODIES[`${method.toUpperCase()} ${template}`] ?? (schema && sample(schema));
          for (const parameter of parameters) {
            for (const value of BAD_PARAMS) {
              const path =
                parameter.in === 'path'
                  ? pathOf({ name: parameter.name, value })
                  : `${pathOf()}${template.includes('?') ? '&' : '?'}${parameter.name}=${value}`;
              await call(method.toUpperCase(), path, body === undefined ? undefined : JSON.stringify(body));
            }
          }
          for (const type of ['string', 'number'] as const) {
            for (const at of body === undefined ? [] : pathsOf(type, body)) {
              for (const leaf of BAD_LEAVES[type]) await call(method.toUpperCase(), pathOf(), withLeaf(body, at, leaf));
            }
          }
        }
      }
      expect(failures).toEqual([]);
      expect(accepted).toBeGreaterThan(100);
      await stack.ingestSettled();
      const letters = await runCli(['dlq', 'list', '--json'], stack.env);
      expect(JSON.parse(letters.stdout)).toEqual([]);
    }, 180_000);
  });

  describe('integer query parameters are decimal integers (issue 24 item 9)', () => {
    it.each(['0x10', '1e2', '5.0', '%2B5', '%205', '0b11', ''])('GET /api/v1/traces?limit=%s is 400 naming limit', async (limit) => {
      expect(await request('GET', `/api/v1/traces?limit=${limit}`)).toMatchObject({
        status: 400,
        body: { error: { code: 'VALIDATION_ERROR', message: 'limit: must be a decimal integer from 1 to 100' } },
      });
    });

    it('trace.list with limit "0x10" or 1e2 as a string is 400 naming limit', async () => {
      for (const limit of ['0x10', '1e2']) {
        const res = await mutate(stack, session.access_token, 'trace.list', { projectId: tenant.projectId, limit });
        expect(res.status).toBe(400);
        expect(res.body.error.message).toMatch(/^limit: must be a decimal integer/);
      }
    });

    it('GET /api/v1/traces?limit=16 still answers', async () => {
      expect((await request('GET', '/api/v1/traces?limit=16')).status).toBe(200);
    });
  });

  describe('HTTP-level refusals answer in the SPEC 7.2 envelope (issue 24 item 9)', () => {
    it('a path parameter too long is 414, without the URL in the answer', async () => {
      const id = `secret-${'a'.repeat(5_000)}`;
      const res = await request('GET', `/api/v1/traces/${id}`);
      expect(res).toEqual({
        status: 414,
        body: { error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/^the URL is too long/) } },
        seq: null,
      });
      expect(JSON.stringify(res.body)).not.toContain('secret-');
    });

    it('a trace id of 256 characters, percent-encoded to 1,536, is read like any other', async () => {
      const id = 'é'.repeat(256);
      const { seq } = await request('POST', '/api/v1/traces', {
        batch: [{ id: randomUUID(), type: 'trace-create', timestamp: new Date().toISOString(), body: { id, name: 'long id' } }],
      });
      expect(await request('GET', `/api/v1/traces/${encodeURIComponent(id)}?minSeq=${seq}`)).toMatchObject({
        status: 200,
        body: { externalId: id, name: 'long id' },
      });
    });

    it('headers over the server’s limit are 431', async () => {
      const res = await rawRequest(
        stack,
        `GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\nX-Padding: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`,
      );
      expect(res.status).toBe(431);
      expect(JSON.parse(res.body)).toEqual({
        error: { code: 'VALIDATION_ERROR', message: expect.stringMatching(/^request headers are too large/) },
      });
    });
  });

  describe('no input of GET /api/v1/traces, GET /api/v1/traces/:id or the RPC is answered 5xx (fast-check)', () => {
    const two = (n: number) => String(n).padStart(2, '0');
    /** ISO 8601 and Postgres look-alikes with any numbers in the fields, and real instants written several ways. */
    const isoish = fc.oneof(
      fc
        .tuple(
          fc.nat(99_999),
          fc.nat(99),
          fc.nat(99),
          fc.constantFrom('T', ' ', 't'),
          fc.nat(99),
          fc.nat(99),
          fc.nat(99),
          fc.constantFrom('', '.5', ',5', '.1234567'),
          fc.constantFrom('', 'Z', '+00', '+05:30', '-1600', '+99:99'),
        )
        .map(
          ([y, mo, d, sep, h, mi, sec, fraction, zone]) =>
            `${String(y).padStart(4, '0')}-${two(mo)}-${two(d)}${sep}${two(h)}:${two(mi)}:${two(sec)}${fraction}${zone}`,
        ),
      fc.integer({ min: -8.64e15, max: 8.64e15 }).chain((ms) => {
        const iso = new Date(ms).toISOString();
        return fc.constantFrom(
          iso,
          iso.slice(0, 10),
          iso.replace('T', ' ').replace('Z', '+00'),
          `${iso.slice(0, 4)}-W01-1`,
          `${iso.slice(0, 13)}Z`,
        );
      }),
    );
    /** Any text a client may send: NUL, unpaired surrogates, any Unicode, huge, dates, numbers. */
    const anyText = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      {
        // The characters that break things most often, weighted up: a few hundred runs must meet them.
        arbitrary: fc.string({
          unit: fc.constantFrom(
            '\u0000',
            '\ud800',
            '\udfff',
            '\u{1f600}',
            '€',
            'é',
            '\r',
            '\n',
            'a',
            '-',
            ':',
            '.',
            ',',
            ' ',
            'T',
            'Z',
            '+',
            '%',
            '0',
          ),
          maxLength: 30,
        }),
        weight: 4,
      },
      isoish,
      fc.oneof(fc.integer(), fc.double(), fc.bigInt()).map(String),
      fc.nat({ max: 20_000 }).map((n) => 'x'.repeat(n)),
    );
    /** A cursor as a client might forge one: base64url JSON of a look-alike position. */
    const cursor = fc.oneof(
      anyText,
      fc
        .tuple(fc.oneof(isoish, anyText), fc.oneof(fc.uuid(), anyText))
        .map((position) => Buffer.from(JSON.stringify(position)).toString('base64url')),
    );

    /**
     * JSON nested `depth` levels, written into the request's text by `jsonOf`: JSON.stringify and
     * fast-check's printing of a counterexample would overflow the test's own stack on it.
     */
    class DeepJson {
      constructor(readonly depth: number) {}
      toJSON(): string {
        return `\u0001deep:${this.depth}`;
      }
      [fc.toStringMethod](): string {
        return `<JSON ${this.depth} levels deep>`;
      }
    }
    /** The request's JSON text, each DeepJson written out. */
    const jsonOf = (value: unknown): string =>
      // JSON.stringify writes an unpaired surrogate as a \u escape, as JSON clients do.
      JSON.stringify(value).replace(/"\\u0001deep:(\d+)"/g, (_, depth: string) => {
        const levels = Array.from({ length: Number(depth) }, (_, i) => (i % 2 ? ['[', ']'] : ['{"a":', '}']));
        return `${levels.map(([open]) => open).join('')}"bottom"${levels
          .map(([, close]) => close)
          .reverse()
          .join('')}`;
      });
    /** Any JSON value, or any text. */
    const anything = fc.oneof(anyText, fc.jsonValue({ maxDepth: 2 }));
    /** JSON for a field stored as JSON: any value, odd keys and characters, or nested deeper than any storage takes (BAD_INPUTS 4). */
    const oddJson = fc.oneof(
      anything,
      fc.dictionary(fc.oneof(anyText, fc.constantFrom('__proto__', 'constructor', '', '$ref')), fc.jsonValue({ maxDepth: 3 }), {
        maxKeys: 4,
      }),
      fc.constantFrom(10, 100, 1_000, 10_000).map((depth) => new DeepJson(depth)),
    );

    /** Percent-encodes as WTF-8, so that an unpaired surrogate reaches the server as the bytes a client would send (encodeURIComponent throws on it). */
    const encode = (text: string): string =>
      Array.from(text)
        .map((ch) => {
          const cp = ch.codePointAt(0) as number;
          if (cp < 0xd800 || cp > 0xdfff) return encodeURIComponent(ch);
          return [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
        })
        .join('');
    const queryOf = (params: Record<string, string | string[]>): string =>
      Object.entries(params)
        .flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((v) => `${key}=${encode(v)}`))
        .join('&');

    const LIST_PARAMS = [
      'id',
      'name',
      'tags',
      'userId',
      'sessionId',
      'environment',
      'fromTimestamp',
      'toTimestamp',
      'spanType',
      'model',
      'scoreName',
      'minScore',
      'maxScore',
      'limit',
      'cursor',
      'minSeq',
    ];
    const paramValue = (key: string) =>
      fc.oneof({ arbitrary: key === 'cursor' ? cursor : anyText, weight: 4 }, fc.array(anyText, { minLength: 2, maxLength: 3 }));
    /** One to three parameters: with all of them at once, the first refused would hide what the others do. */
    const listQuery = fc
      .subarray(LIST_PARAMS, { minLength: 1, maxLength: 3 })
      .chain(
        (keys) =>
          fc.record(Object.fromEntries(keys.map((key) => [key, paramValue(key)]))) as fc.Arbitrary<Record<string, string | string[]>>,
      );

    /** Fails with the request when the answer is a 5xx. */
    const expectNo5xx = async (method: string, path: string, res: { status: number; text: string }) => {
      if (res.status >= 500) throw new Error(`${method} ${path} answered ${res.status}: ${res.text}`);
    };
    /**
     * Fails with the request when a refusal has no message, or a 400 of the RPC's own names no
     * field (`name: …`, `items[2].traceId: …`) nor the input or body as a whole.
     */
    const expectRpcError = (method: string, path: string, res: { status: number; text: string }) => {
      if (res.status < 400) return;
      const { error } = JSON.parse(res.text) as { error?: { message?: unknown; data?: { code?: unknown } } };
      const named = typeof error?.message === 'string' && (error.data?.code !== 'BAD_REQUEST' || /^(input|body)\b|: /.test(error.message));
      if (!named) throw new Error(`${method} ${path} answered ${res.status} without naming the field: ${res.text}`);
    };
    const call = async (
      method: string,
      path: string,
      init: { token?: string; body?: string } = {},
      expectAnswer?: (method: string, path: string, res: { status: number; text: string }) => void,
    ) => {
      const res = await fetch(`${stack.baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${init.token ?? tenant.apiKey}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: init.body,
      });
      const answer = { status: res.status, text: await res.text() };
      await expectNo5xx(method, path, answer);
      expectAnswer?.(method, path, answer);
    };

    it('GET /api/v1/traces with any query', async () => {
      await fc.assert(
        fc.asyncProperty(listQuery, (params) => call('GET', `/api/v1/traces?${queryOf(params)}`)),
        { numRuns: 200 },
      );
    });

    it('GET /api/v1/traces/:id with any id and minSeq', async () => {
      await fc.assert(
        fc.asyncProperty(
          anyText.filter((id) => id.length > 0),
          fc.option(fc.oneof(anyText, fc.array(anyText, { minLength: 2, maxLength: 2 }))),
          (id, minSeq) => call('GET', `/api/v1/traces/${encode(id)}${minSeq === null ? '' : `?${queryOf({ minSeq })}`}`),
        ),
        { numRuns: 100 },
      );
    });

    it('GET /api/v1/sessions, /api/v1/sessions/:id and /api/v1/users with any query and id', async () => {
      const groupQuery = fc
        .subarray(['id', 'userId', 'environment', 'fromTimestamp', 'toTimestamp', 'limit', 'cursor', 'minSeq'], {
          minLength: 1,
          maxLength: 3,
        })
        .chain(
          (keys) =>
            fc.record(Object.fromEntries(keys.map((key) => [key, paramValue(key)]))) as fc.Arbitrary<Record<string, string | string[]>>,
        );
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('/api/v1/sessions', '/api/v1/users'), groupQuery, (path, params) =>
          call('GET', `${path}?${queryOf(params)}`),
        ),
        { numRuns: 150 },
      );
      await fc.assert(
        fc.asyncProperty(
          anyText.filter((id) => id.length > 0),
          fc.option(groupQuery),
          (id, params) => call('GET', `/api/v1/sessions/${encode(id)}${params === null ? '' : `?${queryOf(params)}`}`),
        ),
        { numRuns: 100 },
      );
    });

    it("the trace read's sub-routes and paging parameters with any values", async () => {
      const value = fc.oneof(anyText, fc.array(anyText, { minLength: 2, maxLength: 2 }), cursor, fc.integer().map(String));
      const params = fc.record({ spansLimit: value, spansCursor: value, limit: value, cursor: value }, { requiredKeys: [] });
      const id = fc.oneof(
        anyText.filter((t) => t.length > 0),
        fc.constant('costly'),
      );
      await fc.assert(
        fc.asyncProperty(id, fc.constantFrom('', '/spans', '/scores', '/spans/g1'), params, (traceId, sub, query) =>
          call('GET', `/api/v1/traces/${encode(traceId)}${sub}?${queryOf(query)}`),
        ),
        { numRuns: 150 },
      );
    });

    it('POST /api/v1/scores and /api/v1/route-model with any body', async () => {
      const id = fc.oneof(anyText, fc.constantFrom('0af7651916cd43dd8448eb211c80319c', 'b7ad6b7169203331'));
      const score = fc.record(
        {
          id,
          traceId: id,
          spanId: id,
          name: anyText,
          value: fc.oneof(fc.double(), fc.boolean(), anyText, anything),
          dataType: anyText,
          comment: anyText,
          metadata: anything,
          source: anyText,
        },
        { requiredKeys: [] },
      );
      const routing = fc.record(
        {
          candidates: fc.oneof(fc.array(anyText, { maxLength: 3 }), anything),
          objective: fc.oneof(anyText, fc.constantFrom('cost', 'latency', 'quality', 'balanced')),
          constraints: fc.oneof(
            fc.record({ maxCostUsd: fc.double(), maxP95LatencyMs: fc.double(), minPassRate: fc.double() }, { requiredKeys: [] }),
            anything,
          ),
          scoreName: anyText,
          windowHours: fc.oneof(fc.integer(), fc.double(), anything),
        },
        { requiredKeys: [] },
      );
      await fc.assert(
        fc.asyncProperty(fc.oneof(score, fc.record({ scores: fc.array(score, { maxLength: 3 }) }), anything), (body) =>
          call('POST', '/api/v1/scores', { body: JSON.stringify(body) }),
        ),
        { numRuns: 150 },
      );
      await fc.assert(
        fc.asyncProperty(fc.oneof(routing, anything), (body) => call('POST', '/api/v1/route-model', { body: JSON.stringify(body) })),
        { numRuns: 150 },
      );
    });

    /** A name or description: mostly one every rule takes, so that a call gets as far as its insert with one hostile field. */
    const nameish = fc.oneof({ arbitrary: fc.stringMatching(/^[a-z][a-z0-9 -]{0,15}$/), weight: 2 }, anyText);
    /** One of the values a field takes, three times in four; else any text. */
    const oneOfOrAny = (values: readonly string[]) => fc.oneof({ arbitrary: fc.constantFrom(...values), weight: 3 }, anyText);
    /** An optional field, left out one time in three (JSON.stringify drops it). */
    const optional = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined, freq: 3 });
    /** The fields of an evaluator, as `evaluator.create`/`update` take them and `evaluator.test` as its `config`. */
    const evaluatorShape = () => ({
      name: nameish,
      kind: optional(oneOfOrAny(EVALUATOR_KINDS)),
      url: optional(
        fc.oneof(
          fc.constantFrom('https://eval.example.com/score', 'http://127.0.0.1:9/score'),
          anyText.map((t) => `https://eval.example.com/${t}`),
        ),
      ),
      judge: optional(
        fc.record(
          {
            connectionId: fc.uuid(),
            model: nameish,
            prompt: fc.oneof(fc.record({ name: nameish, label: nameish }, { requiredKeys: ['name'] }), anything),
            scoreType: oneOfOrAny(JUDGE_SCORE_TYPES),
            categories: fc.array(anyText, { maxLength: 3 }),
          },
          { requiredKeys: [] },
        ),
      ),
      headers: optional(headers),
      timeoutMs: optional(fc.integer({ min: 1_000, max: 30_000 })),
      retries: optional(fc.integer({ min: 0, max: 5 })),
      filter: optional(
        fc.record({
          spanTypes: fc.array(fc.oneof(fc.constantFrom('LLM', 'tool'), anyText), { maxLength: 2 }),
          names: fc.array(anyText, { maxLength: 2 }),
          sampleRate: fc.double({ min: 0, max: 1 }),
          tags: fc.array(anyText, { maxLength: 2 }),
          environments: fc.array(anyText, { maxLength: 2 }),
        }),
      ),
      enabled: optional(fc.boolean()),
      target: optional(oneOfOrAny(EVALUATOR_TARGETS)),
      quietSeconds: optional(fc.oneof(fc.integer({ min: 5, max: 3_600 }), fc.integer(), fc.double())),
    });
    const headers = fc.dictionary(fc.oneof({ arbitrary: fc.stringMatching(/^[A-Za-z][A-Za-z0-9-]{0,10}$/), weight: 4 }, anyText), anyText, {
      minKeys: 1,
      maxKeys: 2,
    });
    /** Instants a range check can accept (the last 40 days), or anything like a time. */
    const when = fc.oneof(
      fc.integer({ min: Date.now() - 40 * 86_400_000, max: Date.now() + 86_400_000 }).map((ms) => new Date(ms).toISOString()),
      isoish,
    );
    /** A page or limit: in range, out of range, not an integer, not a number. */
    const count = fc.oneof(fc.integer({ min: -2, max: 1_002 }), fc.integer(), fc.double(), anyText);
    const prices = fc.oneof(
      fc.dictionary(
        fc.oneof({ arbitrary: fc.constantFrom('input', 'output', 'total', 'input_cached_tokens'), weight: 3 }, anyText),
        fc.oneof({ arbitrary: fc.double({ min: 0, max: 1, noNaN: true }), weight: 3 }, fc.double(), anything),
        {
          maxKeys: 3,
        },
      ),
      anything,
    );
    const pattern = fc.oneof(
      fc.stringMatching(/^[a-z]{1,8}$/).map((name) => `(?i)^${name}-.*$`),
      fc.constantFrom('(a+)+$', '^(a|ab)*$', '[', '(?i)', '.*', '^a\\1$'),
      anyText,
    );
    const traceFilter = {
      id: anyText,
      name: nameish,
      userId: anyText,
      sessionId: anyText,
      environment: anyText,
      fromTimestamp: when,
      toTimestamp: when,
      spanType: nameish,
      model: nameish,
      operation: nameish,
      scoreName: nameish,
      minScore: fc.oneof(fc.double(), anyText),
      maxScore: fc.oneof(fc.double(), anyText),
      limit: count,
      cursor,
      tags: fc.array(anyText, { maxLength: 3 }),
    };
    const datasetItem = fc.oneof(
      fc.record(
        {
          id: fc.oneof(fc.constant('item-1'), anyText),
          input: oddJson,
          expectedOutput: oddJson,
          metadata: oddJson,
          sourceTraceId: fc.oneof(fc.constant('costly'), anyText),
          sourceSpanId: fc.oneof(fc.constant('g1'), anyText),
          status: oneOfOrAny(DATASET_ITEM_STATUSES),
        },
        { requiredKeys: [] },
      ),
      anything,
    );
    const scoreConfigFields = {
      name: nameish,
      minValue: optional(fc.oneof(fc.double(), fc.constant(null))),
      maxValue: optional(fc.oneof(fc.double(), fc.constant(null))),
      categories: optional(
        fc.array(fc.oneof(fc.record({ label: nameish, value: fc.oneof(fc.double(), anything) }), anything), { maxLength: 3 }),
      ),
      description: optional(fc.oneof(nameish, fc.constant(null))),
    };
    const monitorFields = {
      name: nameish,
      metric: oneOfOrAny(MONITOR_METRICS),
      scoreName: optional(nameish),
      filter: optional(
        fc.oneof(fc.record({ model: nameish, spanType: nameish, traceName: nameish, operation: nameish }, { requiredKeys: [] }), anything),
      ),
      windowSeconds: fc.oneof(fc.constantFrom(300, 3_600, 604_800), fc.integer(), fc.double()),
      comparison: oneOfOrAny(MONITOR_COMPARISONS),
      threshold: fc.oneof(fc.double(), fc.integer()),
      enabled: optional(fc.boolean()),
    };
    const modelFields = {
      modelName: nameish,
      matchPattern: pattern,
      startDate: optional(when),
      unit: optional(oneOfOrAny(['TOKENS'])),
      prices,
      tiers: optional(
        fc.array(
          fc.record({
            name: nameish,
            priority: fc.oneof(fc.integer({ min: 0, max: 1_001 }), anything),
            conditions: fc.array(
              fc.record({
                usageDetailPattern: pattern,
                operator: oneOfOrAny(TIER_OPERATORS),
                value: fc.double(),
                caseSensitive: fc.boolean(),
              }),
              { maxLength: 2 },
            ),
            prices,
          }),
          { maxLength: 2 },
        ),
      ),
    };
    const connectionFields = {
      name: nameish,
      baseUrl: fc.oneof(fc.constantFrom('https://llm.example.com/v1', 'http://127.0.0.1:9/v1'), anyText),
      apiKey: fc.oneof(fc.stringMatching(/^[\x21-\x7e]{1,40}$/), anyText),
      headers: optional(headers),
    };

    /** Ids of rows the fuzz run made, so that some calls reach past "not found". */
    interface Known {
      configId: string;
      queueId: string;
    }
    /** Every RPC procedure's fields: what its DTO and the domain reader behind it take, with valid-looking and hostile values. */
    const rpcInputs = (known: Known): Record<string, Record<string, fc.Arbitrary<unknown>>> => {
      // Mostly the caller's own: another's is refused before its fields are read.
      const projectId = fc.oneof({ arbitrary: fc.constant(tenant.projectId), weight: 3 }, fc.uuid());
      const orgId = fc.oneof({ arbitrary: fc.constant(tenant.orgId), weight: 3 }, fc.uuid());
      const configId = fc.oneof(fc.constant(known.configId), fc.uuid());
      const queueId = fc.oneof(fc.constant(known.queueId), fc.uuid());
      const datasetName = fc.oneof(fc.constant('fuzz'), anyText);
      const traceId = fc.oneof(anyText, fc.constant('costly'));
      return {
        'user.me': {},
        'user.securityLog': { cursor },
        'organization.list': {},
        'organization.create': { name: nameish },
        'project.list': { orgId },
        'project.create': { orgId, name: nameish },
        'apiKey.create': { projectId, name: nameish },
        'apiKey.list': { projectId },
        'apiKey.revoke': { projectId, id: fc.uuid() },
        'member.list': { orgId },
        'member.add': {
          orgId,
          email: fc.oneof(
            fc.emailAddress(),
            anyText.map((t) => `${t}@example.com`),
          ),
          role: fc.constantFrom('owner', 'admin', 'member'),
        },
        'member.remove': { orgId, userId: fc.uuid(), revokeKeys: fc.boolean() },
        'usage.get': { orgId },
        'usage.daily': { orgId },
        'auditLog.list': { orgId, cursor },
        'evaluator.create': { projectId, ...evaluatorShape() },
        'evaluator.list': { projectId },
        'evaluator.update': { projectId, id: fc.uuid(), ...evaluatorShape() },
        'evaluator.rotateSecret': { projectId, id: fc.uuid() },
        'evaluator.delete': { projectId, id: fc.uuid() },
        'evaluator.runs': { projectId, id: fc.uuid(), status: oneOfOrAny(EVAL_RUN_STATUSES), cursor },
        // A config that passes calls out: to a closed port, at most once, and on no span it can find but by luck.
        'evaluator.test': {
          projectId,
          evaluatorId: fc.uuid(),
          config: fc.record({
            ...evaluatorShape(),
            url: fc.constant('http://127.0.0.1:9/score'),
            timeoutMs: fc.constant(1_000),
            retries: fc.constant(0),
          }),
          spanId: fc.uuid(),
          traceId,
        },
        'llmConnection.create': { projectId, ...connectionFields },
        'llmConnection.list': { projectId },
        'llmConnection.update': { projectId, id: fc.uuid(), ...connectionFields },
        'llmConnection.delete': { projectId, id: fc.uuid() },
        'traceSession.list': {
          projectId,
          id: anyText,
          userId: anyText,
          environment: anyText,
          fromTimestamp: isoish,
          toTimestamp: isoish,
          limit: fc.integer(),
          cursor,
        },
        'traceSession.get': { projectId, id: anyText, limit: fc.integer(), cursor },
        'traceUser.list': {
          projectId,
          id: anyText,
          environment: anyText,
          fromTimestamp: isoish,
          toTimestamp: isoish,
          limit: fc.integer(),
          cursor,
        },
        'traceUser.get': { projectId, id: anyText },
        'trace.list': { projectId, ...traceFilter },
        'trace.get': { projectId, id: traceId, spansLimit: fc.oneof(fc.integer(), anything), spansCursor: cursor },
        'trace.spans': { projectId, traceId, limit: fc.oneof(fc.integer(), anything), cursor },
        'trace.scores': { projectId, traceId, limit: fc.oneof(fc.integer(), anything), cursor },
        'trace.span': { projectId, traceId, spanId: fc.oneof(anyText, fc.constant('g1')) },
        'trace.filterValues': {
          projectId,
          field: oneOfOrAny(FILTER_VALUE_FIELDS),
          prefix: anyText,
          limit: count,
        },
        'stats.overview': {
          projectId,
          from: when,
          to: when,
          bucketSeconds: fc.oneof(fc.constantFrom(300, 3_600, 86_400), fc.integer(), fc.double()),
        },
        'cost.unpriced': { projectId, from: when, to: when },
        'monitor.create': { projectId, ...monitorFields },
        'monitor.list': { projectId },
        'monitor.update': { projectId, id: fc.uuid(), ...monitorFields },
        'monitor.delete': { projectId, id: fc.uuid() },
        'monitor.history': { projectId, id: fc.uuid(), cursor },
        'model.list': { projectId },
        'model.create': { projectId, ...modelFields },
        'model.update': { projectId, id: fc.uuid(), ...modelFields },
        'model.delete': { projectId, id: fc.uuid() },
        'prompt.list': { projectId, cursor },
        'prompt.versions': { projectId, name: nameish, cursor },
        'dataset.create': { projectId, name: nameish, description: nameish, metadata: oddJson },
        'dataset.upsertItems': { projectId, datasetName, items: fc.oneof(fc.array(datasetItem, { maxLength: 3 }), anything) },
        'dataset.checkItems': { projectId, datasetName, items: fc.oneof(fc.array(datasetItem, { maxLength: 3 }), anything) },
        'dataset.archiveItem': { projectId, datasetName, itemId: fc.oneof(fc.constant('item-1'), anyText), archived: fc.boolean() },
        'dataset.list': { projectId, page: count, limit: count },
        'dataset.get': { projectId, name: datasetName },
        'dataset.items': { projectId, name: datasetName, page: count, limit: count, version: when },
        'dataset.runs': { projectId, name: datasetName, page: count, limit: count },
        'dataset.run': { projectId, name: datasetName, runName: anyText, page: count, limit: count },
        'dataset.compare': { projectId, name: datasetName, runNames: fc.array(anyText, { maxLength: 11 }) },
        'scoreConfig.create': { projectId, dataType: oneOfOrAny(SCORE_DATA_TYPES), ...scoreConfigFields },
        'scoreConfig.list': { projectId },
        'scoreConfig.update': { projectId, id: configId, ...scoreConfigFields },
        'scoreConfig.archive': { projectId, id: configId, archived: fc.boolean() },
        'handScore.create': {
          projectId,
          traceId: fc.uuid(),
          spanId: fc.uuid(),
          configId,
          value: fc.oneof(fc.double(), fc.boolean(), anyText),
          comment: anyText,
        },
        'handScore.update': { projectId, id: fc.uuid(), value: fc.oneof(fc.double(), fc.boolean(), anyText), comment: anyText },
        'handScore.delete': { projectId, id: fc.uuid() },
        'annotationQueue.create': { projectId, name: nameish, description: nameish, scoreConfigIds: fc.array(configId, { maxLength: 3 }) },
        'annotationQueue.list': { projectId },
        'annotationQueue.get': { projectId, queueId },
        'annotationQueue.update': {
          projectId,
          queueId,
          name: nameish,
          description: nameish,
          scoreConfigIds: fc.array(configId, { maxLength: 3 }),
        },
        'annotationQueue.archive': { projectId, queueId, archived: fc.boolean() },
        'annotationQueue.addItems': {
          projectId,
          queueId,
          items: fc.array(fc.oneof(fc.record({ traceId: fc.uuid(), spanId: fc.uuid() }, { requiredKeys: ['traceId'] }), anything), {
            maxLength: 3,
          }),
        },
        'annotationQueue.addFromFilter': { projectId, queueId, filter: fc.oneof(fc.record(traceFilter, { requiredKeys: [] }), anything) },
        'annotationQueue.items': { projectId, queueId, status: oneOfOrAny(QUEUE_ITEM_STATUSES), cursor },
        'annotationQueue.next': { projectId, queueId, afterItemId: fc.uuid(), previous: fc.boolean() },
        'annotationQueue.complete': { projectId, itemId: fc.uuid() },
        'annotationQueue.skip': { projectId, itemId: fc.uuid() },
        'annotationQueue.progress': { projectId, queueId },
      };
    };

    it('the RPC fuzz has an input for every procedure of the router', () => {
      // The router built without its services (a procedure only reaches them when called), so that a procedure added without fuzz input fails here.
      const procedures = Object.keys(buildRouter({} as RpcServices)._def.procedures);
      const covered = Object.keys(rpcInputs({ configId: randomUUID(), queueId: randomUUID() }));
      expect(procedures.filter((p) => !covered.includes(p))).toEqual([]);
      expect(covered.filter((p) => !procedures.includes(p))).toEqual([]);
    });

    it('every RPC procedure with any value in any field', async () => {
      // Rows for some calls to find: a dataset with an item, a score config and a queue on it.
      expect((await request('POST', '/api/v1/datasets', { name: 'fuzz' })).status).toBe(201);
      expect((await request('POST', '/api/v1/datasets/fuzz/items', { items: [{ id: 'item-1', input: { q: 1 } }] })).status).toBe(201);
      const project = { projectId: tenant.projectId };
      const config = data(
        await mutate(stack, session.access_token, 'scoreConfig.create', { ...project, name: 'fuzz', dataType: 'BOOLEAN' }),
      );
      const queue = data(
        await mutate(stack, session.access_token, 'annotationQueue.create', { ...project, name: 'fuzz', scoreConfigIds: [config.id] }),
      );
      const inputs = rpcInputs({ configId: config.id, queueId: queue.id });

      // Each input is one of the right shape holding any text, with a field or two replaced
      // by anything or left out: mostly it passes the first checks and reaches the database.
      const inputOf = (shapes: Record<string, fc.Arbitrary<unknown>>) => {
        const keys = Object.keys(shapes);
        const some = (max: number) =>
          keys.length === 0
            ? fc.constant<string[]>([])
            : fc.oneof(
                { arbitrary: fc.constant<string[]>([]), weight: 3 },
                fc.subarray(keys, { minLength: 1, maxLength: Math.min(max, keys.length) }),
              );
        return fc
          .tuple(fc.record(shapes), some(2), some(1), fc.array(anything, { minLength: keys.length, maxLength: keys.length }))
          .map(([input, replaced, dropped, values]) => {
            const out: Record<string, unknown> = { ...input };
            replaced.forEach((key, i) => (out[key] = values[i]));
            for (const key of dropped) delete out[key];
            return out;
          });
      };
      // A procedure with more fields has more to get wrong: it is called more often.
      const rpcCall = fc.oneof(
        ...Object.entries(inputs).map(([procedure, fields]) => ({
          arbitrary: fc.record({ procedure: fc.constant(procedure), input: inputOf(fields), viaQuery: fc.boolean() }),
          weight: 1 + Object.keys(fields).length,
        })),
      );
      await fc.assert(
        fc.asyncProperty(rpcCall, ({ procedure, input, viaQuery }) => {
          const json = jsonOf(input);
          return viaQuery
            ? call('GET', `/api/trpc/${procedure}?input=${encodeURIComponent(json)}`, { token: session.access_token }, expectRpcError)
            : call('POST', `/api/trpc/${procedure}`, { token: session.access_token, body: json }, expectRpcError);
        }),
        // About 7 calls a procedure, 3 s here; FUZZ_RUNS=5000 for a longer hunt.
        { numRuns: Number(process.env.FUZZ_RUNS ?? 600) },
      );
      // What a procedure accepted and appended (hand scores, run items) the processor applies.
      await stack.ingestSettled();
      expect(JSON.parse((await runCli(['dlq', 'list', '--json'], stack.env)).stdout)).toEqual([]);
    });
  });
});
