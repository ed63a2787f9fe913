import { createHash } from 'node:crypto';
import { deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { MAX_JSON_DEPTH } from '@app/domain';

/**
 * Requests for both ingestion endpoints built from a valid body and one bad-input class of
 * ../shared/BAD_INPUTS.md (the number in each label). A case is a recipe, not a body: it is
 * built with a fresh seed when sent, so the valid parts of accepted requests never collide.
 */

export type Endpoint = 'native' | 'otlp';

export const PATHS: Record<Endpoint, string> = { native: '/api/v1/traces', otlp: '/api/v1/otel/traces' };

/** The connection ended with no answer, in place of a status. */
export const NO_ANSWER = 0;

export interface FuzzRequest {
  endpoint: Endpoint;
  body: Buffer;
  headers: Record<string, string>;
  /** Sent over a raw socket with this Content-Length instead of the body's length. */
  contentLength?: number;
}

export interface FuzzCase {
  /** `<BAD_INPUTS number> <class>`: what the summary counts answers by. */
  label: string;
  /** What was done, for a readable counterexample. */
  detail: string;
  /** The answers the contract allows for it; never a 5xx. */
  allowed: number[];
  build(seed: string): FuzzRequest;
}

const SUCCESS: Record<Endpoint, number> = { native: 201, otlp: 200 };
/** Stored (whole or in part), refused as invalid, too large, or the wrong media type. */
const ANY_DOCUMENTED = (endpoint: Endpoint) => [SUCCESS[endpoint], 400, 413, 415];

const JSON_TYPE = { 'content-type': 'application/json' };
const T0 = '2026-11-01T10:00:00.000Z';
const NANOS0 = '1793527200000000000';

type Obj = Record<string, any>;

function nativeBody(seed: string): Obj {
  return {
    batch: [
      { id: `${seed}-e0`, type: 'trace-create', timestamp: T0, body: { id: `${seed}-t`, name: 'fuzz trace', metadata: { k: 'v' } } },
      {
        id: `${seed}-e1`,
        type: 'span-create',
        timestamp: T0,
        body: { id: `${seed}-s`, traceId: `${seed}-t`, name: 'fuzz span', startTime: T0, input: { q: 'x' } },
      },
    ],
  };
}

/** 32 or 16 hex digits derived from the seed. */
const hexOf = (seed: string, length: number): string => createHash('sha256').update(seed).digest('hex').slice(0, length);

function otlpBody(seed: string): Obj {
  return {
    resourceSpans: [
      {
        resource: { attributes: [{ key: 'service.name', value: { stringValue: 'fuzz' } }] },
        scopeSpans: [
          {
            scope: { name: 'fuzz', version: '1.0.0' },
            spans: [
              {
                traceId: hexOf(seed, 32),
                spanId: hexOf(seed, 16),
                parentSpanId: '',
                name: 'fuzz span',
                kind: 1,
                startTimeUnixNano: NANOS0,
                endTimeUnixNano: NANOS0,
                attributes: [{ key: 'k', value: { stringValue: 'v' } }],
                status: { code: 0 },
              },
            ],
          },
        ],
      },
    ],
  };
}

const BODIES: Record<Endpoint, (seed: string) => Obj> = { native: nativeBody, otlp: otlpBody };

/** Objects of a body a mutation may reach into, by name. */
const PLACES: Record<Endpoint, Record<string, (body: Obj) => Obj>> = {
  native: {
    top: (b) => b,
    event: (b) => b.batch[1],
    body: (b) => b.batch[1].body,
    input: (b) => b.batch[1].body.input,
    traceBody: (b) => b.batch[0].body,
  },
  otlp: {
    top: (b) => b,
    resourceSpans: (b) => b.resourceSpans[0],
    span: (b) => b.resourceSpans[0].scopeSpans[0].spans[0],
    attribute: (b) => b.resourceSpans[0].scopeSpans[0].spans[0].attributes[0],
    attributeValue: (b) => b.resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value,
  },
};

/** Fields holding strings a client fills in, where text-level bad inputs go. */
const STRING_FIELDS: Record<Endpoint, [place: string, field: string][]> = {
  native: [
    ['event', 'id'],
    ['body', 'id'],
    ['body', 'name'],
    ['body', 'traceId'],
    ['input', 'q'],
    ['traceBody', 'name'],
  ],
  otlp: [
    ['span', 'name'],
    ['attribute', 'key'],
    ['attributeValue', 'stringValue'],
    ['span', 'traceId'],
    ['span', 'spanId'],
  ],
};

/**
 * JSON text of `body` in which every `"@@i@@"` value, and every `"@@i@@":0` member, is
 * replaced by raw text: what JSON.stringify cannot write (duplicate keys, big numbers, bad escapes).
 */
function withRaw(body: Obj, raws: string[]): string {
  let text = JSON.stringify(body);
  raws.forEach((raw, i) => {
    text = text.replace(`"@@${i}@@":0`, () => raw).replace(`"@@${i}@@"`, () => raw);
  });
  return text;
}

const json = (endpoint: Endpoint, text: string | Buffer, headers: Record<string, string> = JSON_TYPE): FuzzRequest => ({
  endpoint,
  body: Buffer.isBuffer(text) ? text : Buffer.from(text),
  headers,
});

/** A case that sets `place.field` to raw JSON text. */
function rawField(endpoint: Endpoint, label: string, allowed: number[], place: string, field: string, raw: string): FuzzCase {
  return {
    label,
    detail: `${endpoint} ${place}.${field} = ${raw.length > 80 ? `${raw.slice(0, 80)}… (${raw.length} chars)` : raw}`,
    allowed,
    build: (seed) => {
      const body = BODIES[endpoint](seed);
      PLACES[endpoint][place](body)[field] = '@@0@@';
      return json(endpoint, withRaw(body, [raw]));
    },
  };
}

/** A case that adds raw members (`"k":v,…`) to `place`. */
function rawMembers(endpoint: Endpoint, label: string, allowed: number[], place: string, members: string): FuzzCase {
  return {
    label,
    detail: `${endpoint} ${place} += ${members.length > 80 ? `${members.slice(0, 80)}…` : members}`,
    allowed,
    build: (seed) => {
      const body = BODIES[endpoint](seed);
      PLACES[endpoint][place](body)['@@0@@'] = 0;
      return json(endpoint, withRaw(body, [members]));
    },
  };
}

const placeOf = (endpoint: Endpoint) => fc.constantFrom(...Object.keys(PLACES[endpoint]));
const stringFieldOf = (endpoint: Endpoint) => fc.constantFrom(...STRING_FIELDS[endpoint]);

// 1. Integers beyond 2^53 and other numbers JSON allows but doubles cannot hold.
const BIG_NUMBERS = [
  '18446744073709551616',
  '17935272000000000001',
  '9007199254740993',
  '1e400',
  '-1e400',
  '1E+21',
  '-0',
  '0.1e-400',
  '1793527200000000000.5',
];
const bigNumbers = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> => {
  const fields: [string, string][] =
    endpoint === 'otlp'
      ? [
          ['span', 'startTimeUnixNano'],
          ['span', 'endTimeUnixNano'],
          ['span', 'kind'],
          ['attributeValue', 'intValue'],
          ['attributeValue', 'doubleValue'],
        ]
      : [
          ['input', 'n'],
          ['body', 'input'],
          ['traceBody', 'metadata'],
          ['body', 'name'],
        ];
  return fc
    .tuple(fc.constantFrom(...fields), fc.constantFrom(...BIG_NUMBERS))
    .map(([[place, field], n]) => rawField(endpoint, '1 big numbers', ANY_DOCUMENTED(endpoint), place, field, n));
};

// 2. Duplicate keys: the last one wins, as in JavaScript and jsonb.
const duplicateKeys = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc
    .tuple(
      placeOf(endpoint),
      fc.constantFrom('id', 'name', 'type', 'batch', 'resourceSpans', 'traceId', 'spanId', 'key', 'q'),
      fc.jsonValue({ maxDepth: 2 }),
    )
    .map(([place, key, value]) =>
      rawMembers(endpoint, '2 duplicate keys', ANY_DOCUMENTED(endpoint), place, `${JSON.stringify(key)}:${JSON.stringify(value)}`),
    );

// 3. Prototype poisoning keys: refused by the one JSON parser, wherever they sit.
const protoKeys = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc
    .tuple(
      placeOf(endpoint),
      fc.constantFrom('"__proto__":{"polluted":true}', '"constructor":{"prototype":{"polluted":true}}', '"__proto__":null'),
    )
    .map(([place, members]) => rawMembers(endpoint, '3 prototype keys', [400], place, members));

/** How many objects and arrays enclose `target` in `root`, itself included. */
function depthOf(root: unknown, target: unknown, depth = 1): number {
  if (root === target) return depth;
  if (typeof root !== 'object' || root === null) return 0;
  return Math.max(0, ...Object.values(root).map((child) => depthOf(child, target, depth + 1)));
}

// 4. Nesting around the depth limit and far beyond it, balanced or not.
const deepNesting = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc
    .tuple(
      placeOf(endpoint),
      fc.integer({ min: -3, max: 3 }),
      fc.constantFrom(0, 1_000, 10_000, 100_000),
      fc.constantFrom('[', '{"a":'),
      fc.boolean(),
    )
    .map(([place, nearLimit, far, open, balanced]) => {
      const body = BODIES[endpoint]('depth');
      // The member sits inside `place`, so its nesting adds to the place's own depth.
      const placeDepth = depthOf(body, PLACES[endpoint][place](body));
      const depth = far || MAX_JSON_DEPTH - placeDepth + nearLimit;
      const close = open === '[' ? ']' : '}';
      const raw = `${open.repeat(depth)}0${balanced ? close.repeat(depth) : ''}`;
      const refused = placeDepth + depth > MAX_JSON_DEPTH || !balanced;
      return rawMembers(endpoint, '4 deep nesting', refused ? [400] : ANY_DOCUMENTED(endpoint), place, `"deep":${raw}`);
    });

// 5 and 6. U+0000 and lone surrogates, escaped, in values and keys; Postgres takes neither.
const UNSAFE_ESCAPES = ['\\u0000', 'a\\u0000b', '\\ud800', '\\udfff', 'x\\udbff', '\\udc00\\ud800', '\\u0000\\ud83d'];
const unsafeText = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc.oneof(
    fc
      .tuple(stringFieldOf(endpoint), fc.constantFrom(...UNSAFE_ESCAPES))
      .map(([[place, field], escape]) =>
        rawField(endpoint, '5/6 NUL and lone surrogates', ANY_DOCUMENTED(endpoint), place, field, `"id-${escape}"`),
      ),
    fc
      .tuple(placeOf(endpoint), fc.constantFrom(...UNSAFE_ESCAPES))
      .map(([place, escape]) =>
        rawMembers(endpoint, '5/6 NUL and lone surrogates', ANY_DOCUMENTED(endpoint), place, `"k${escape}":"v${escape}"`),
      ),
  );

// 7. Invalid UTF-8 inside a string: refused, never replaced silently.
const INVALID_UTF8 = [[0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82], [0xf8, 0x88, 0x80, 0x80, 0x80], [0x80]];
const invalidUtf8 = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc.tuple(stringFieldOf(endpoint), fc.constantFrom(...INVALID_UTF8)).map(([[place, field], bytes]) => ({
    label: '7 invalid UTF-8',
    detail: `${endpoint} ${place}.${field} holds bytes ${bytes.map((b) => b.toString(16)).join(' ')}`,
    allowed: [400],
    build: (seed) => {
      const body = BODIES[endpoint](seed);
      PLACES[endpoint][place](body)[field] = '@@BYTES@@';
      const [before, after] = JSON.stringify(body).split('@@BYTES@@');
      return json(endpoint, Buffer.concat([Buffer.from(before), Buffer.from(bytes), Buffer.from(after)]));
    },
  }));

// 8. Sloppy ids: OTLP hex ids of the wrong length, alphabet or type; native ids of any string.
const sloppyIds = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> => {
  if (endpoint === 'native') {
    return fc
      .tuple(
        fc.constantFrom<[string, string]>(['event', 'id'], ['body', 'id'], ['body', 'traceId']),
        fc.oneof(fc.string({ maxLength: 300 }), fc.jsonValue({ maxDepth: 1 })),
      )
      .map(([[place, field], id]) => rawField(endpoint, '8 sloppy ids', ANY_DOCUMENTED(endpoint), place, field, JSON.stringify(id)));
  }
  const hexish = fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEFzZ- '), maxLength: 40 });
  const id = fc.oneof(
    hexish.map((s) => JSON.stringify(s)),
    fc.constantFrom('"00000000000000000000000000000000"', '"0000000000000000"', '12345', 'null', '"W47/95gDgQPSabYzgT/GDA=="'),
  );
  return fc
    .tuple(fc.constantFrom('traceId', 'spanId', 'parentSpanId'), id)
    .map(([field, raw]) => rawField(endpoint, '8 sloppy ids', [200, 400], 'span', field, raw));
};

// 9. Compression bombs: they inflate past the limit, and must stop there.
let bomb: Buffer | null = null;
/** 200 MiB of zeros, about 200 KB gzipped; made once, since making it takes a second. */
const gzipBomb = (): Buffer => (bomb ??= gzipSync(Buffer.alloc(200 * 1024 * 1024)));
/** A valid body padded with 6 MB of spaces before its last brace: only inflating it shows it is too large. */
const paddedBody = (endpoint: Endpoint, seed: string): Buffer =>
  Buffer.concat([Buffer.from(JSON.stringify(BODIES[endpoint](seed)).slice(0, -1)), Buffer.alloc(6 * 1024 * 1024, ' '), Buffer.from('}')]);
const bombs = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc.constantFrom('gzip', 'deflate').map((encoding) => ({
    label: '9 compression bombs',
    detail: `${endpoint} ${encoding === 'gzip' ? 'gzip of 200 MiB of zeros' : 'deflate of a valid body padded to 6 MB'}`,
    allowed: [413],
    build: (seed) =>
      json(endpoint, encoding === 'gzip' ? gzipBomb() : deflateSync(paddedBody(endpoint, seed)), {
        ...JSON_TYPE,
        'content-encoding': encoding,
      }),
  }));

// 10. Huge values inside the limit, media types, enum names, snake_case, framing, truncated gzip, empty bodies.
const hugeValues = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc.tuple(fc.constantFrom('string', 'array', 'events'), fc.constantFrom(...STRING_FIELDS[endpoint])).map(([kind, [place, field]]) => ({
    label: '10 huge values inside the limit',
    detail: `${endpoint} ${kind} near 4 MB`,
    allowed: kind === 'events' && endpoint === 'native' ? [413] : ANY_DOCUMENTED(endpoint),
    build: (seed) => {
      const body = BODIES[endpoint](seed);
      if (kind === 'string') PLACES[endpoint][place](body)[field] = 'x'.repeat(4 * 1024 * 1024);
      else if (kind === 'array') PLACES[endpoint][place](body).list = Array.from({ length: 500_000 }, (_, i) => i % 10);
      else if (endpoint === 'native') body.batch = Array.from({ length: 1_001 }, (_, i) => ({ ...body.batch[1], id: `${seed}-e${i}` }));
      else
        body.resourceSpans[0].scopeSpans[0].spans = Array.from({ length: 3_000 }, (_, i) => ({
          ...body.resourceSpans[0].scopeSpans[0].spans[0],
          spanId: hexOf(`${seed}-${i}`, 16),
        }));
      return json(endpoint, JSON.stringify(body));
    },
  }));

/** Content-Type values and whether they mean JSON. */
const MEDIA_TYPES: [type: string | null, json: boolean][] = [
  [null, false],
  ['text/plain', false],
  ['application/x-protobuf', false],
  ['application/protobuf', false],
  ['multipart/form-data; boundary=x', false],
  ['application/json; charset=utf-8', true],
  ['Application/JSON', true],
];
const mediaTypes = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc.constantFrom(...MEDIA_TYPES).map(([type, isJson]) => ({
    label: '10 media types',
    detail: `${endpoint} Content-Type ${type ?? '(none)'}`,
    allowed: isJson ? [SUCCESS[endpoint]] : [415],
    build: (seed) => json(endpoint, JSON.stringify(BODIES[endpoint](seed)), type === null ? {} : { 'content-type': type }),
  }));

const enumNames = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> => {
  const fields: [string, string, string][] =
    endpoint === 'otlp'
      ? [
          ['span', 'kind', '"SPAN_KIND_SERVER"'],
          ['span', 'status', '{"code":"STATUS_CODE_ERROR"}'],
          ['span', 'kind', '1.5'],
          ['span', 'kind', '-1'],
        ]
      : [
          ['event', 'type', '"SPAN_CREATE"'],
          ['body', 'level', '"error"'],
          ['body', 'type', '"tool"'],
          ['body', 'level', '3'],
        ];
  return fc
    .constantFrom(...fields)
    .map(([place, field, raw]) => rawField(endpoint, '10 enum names for numbers', ANY_DOCUMENTED(endpoint), place, field, raw));
};

const snakeCase = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc.constant(null).map(() => ({
    label: '10 snake_case keys',
    detail: `${endpoint} keys in snake_case`,
    allowed: ANY_DOCUMENTED(endpoint),
    build: (seed) => {
      const text = JSON.stringify(BODIES[endpoint](seed)).replace(
        /"([a-z]+)([A-Z][a-zA-Z]*)":/g,
        (_, head: string, tail: string) => `"${head}${tail.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)}":`,
      );
      return json(endpoint, text);
    },
  }));

const wrongLength = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc.constantFrom(-10, -1, 1, 10, 1_000).map((delta) => ({
    label: '10 Content-Length mismatch',
    detail: `${endpoint} Content-Length off by ${delta}`,
    // Too long: the body ends early, 400. Too short: the body is cut, 400, and the server closes
    // with the rest unread, which makes the kernel send a reset that may discard the answer
    // before the client reads it: no answer is all TCP lets a client be sure of then.
    allowed: delta < 0 ? [400, NO_ANSWER] : [400],
    build: (seed) => {
      const request = json(endpoint, JSON.stringify(BODIES[endpoint](seed)));
      return { ...request, contentLength: request.body.length + delta };
    },
  }));

const truncatedGzip = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc.double({ min: 0.05, max: 0.95, noNaN: true }).map((keep) => ({
    label: '10 truncated gzip',
    detail: `${endpoint} gzip cut to ${Math.round(keep * 100)}%`,
    allowed: [400],
    build: (seed) => {
      const gz = gzipSync(JSON.stringify(BODIES[endpoint](seed)));
      return json(endpoint, gz.subarray(0, Math.max(1, Math.floor(gz.length * keep))), { ...JSON_TYPE, 'content-encoding': 'gzip' });
    },
  }));

const emptyBodies = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc
    .constantFrom<[string, Record<string, string>]>(
      ['empty', JSON_TYPE],
      ['empty gzip', { ...JSON_TYPE, 'content-encoding': 'gzip' }],
      ['gzip of nothing', { ...JSON_TYPE, 'content-encoding': 'gzip' }],
    )
    .map(([kind, headers]) => ({
      label: '10 empty bodies',
      detail: `${endpoint} ${kind}`,
      allowed: [400],
      build: () => json(endpoint, kind === 'gzip of nothing' ? gzipSync(Buffer.alloc(0)) : Buffer.alloc(0), headers),
    }));

// 11. Timestamps: both UTC suffixes, other offsets, impossible dates and non-dates.
const TIMESTAMPS = [
  '"2026-11-01T10:00:00Z"',
  '"2026-11-01T10:00:00+00:00"',
  '"2026-11-01T15:30:00+05:30"',
  '"2026-11-01T02:00:00-08:00"',
  '"2026-13-01T00:00:00Z"',
  '"2026-02-30T00:00:00Z"',
  '"+275760-09-13T00:00:00.001Z"',
  '"0000-01-01T00:00:00Z"',
  '"2026-11-01T10:00:00.123456789Z"',
  '"yesterday"',
  '""',
  '1793527200000',
  'null',
  '"2026-11-01"',
  '"2026-11-01T25:00:00Z"',
];
const NANOS = [
  '"-1"',
  '"0"',
  '"1e18"',
  '"0x10"',
  '""',
  '"99999999999999999999999999"',
  '"1793527200000000000.5"',
  '1793527200000000000',
  '" 1793527200000000000"',
  'null',
  'true',
];
const timestamps = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> => {
  const cases =
    endpoint === 'otlp'
      ? fc
          .tuple(fc.constantFrom('startTimeUnixNano', 'endTimeUnixNano'), fc.constantFrom(...NANOS))
          .map(([field, raw]) => ['span', field, raw] as const)
      : fc
          .tuple(
            fc.constantFrom<[string, string]>(
              ['event', 'timestamp'],
              ['body', 'startTime'],
              ['body', 'endTime'],
              ['traceBody', 'timestamp'],
            ),
            fc.constantFrom(...TIMESTAMPS),
          )
          .map(([[place, field], raw]) => [place, field, raw] as const);
  return cases.map(([place, field, raw]) => rawField(endpoint, '11 timestamps', ANY_DOCUMENTED(endpoint), place, field, raw));
};

// And anything at all in any field, or as the whole body: the classes nobody listed.
const anyValue = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc.oneof(
    fc
      .tuple(
        placeOf(endpoint),
        fc.constantFrom(
          'id',
          'name',
          'type',
          'body',
          'batch',
          'resourceSpans',
          'scopeSpans',
          'spans',
          'attributes',
          'value',
          'input',
          'status',
          'startTime',
        ),
        fc.jsonValue({ maxDepth: 3 }),
      )
      .map(([place, field, value]) =>
        rawField(endpoint, 'any value in any field', ANY_DOCUMENTED(endpoint), place, field, JSON.stringify(value)),
      ),
    fc.jsonValue({ maxDepth: 3 }).map((value) => ({
      label: 'any body',
      detail: `${endpoint} body ${JSON.stringify(value).slice(0, 80)}`,
      allowed: ANY_DOCUMENTED(endpoint),
      build: () => json(endpoint, JSON.stringify(value)),
    })),
    fc.uint8Array({ maxLength: 200 }).map((bytes) => ({
      label: 'any body',
      detail: `${endpoint} bytes ${Buffer.from(bytes).toString('hex').slice(0, 80)}`,
      allowed: [SUCCESS[endpoint], 400],
      build: () => json(endpoint, Buffer.from(bytes)),
    })),
  );

/** Every class, the expensive ones (megabytes per request) drawn less often. */
const badInputClass = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc.oneof(
    { arbitrary: bigNumbers(endpoint), weight: 3 },
    { arbitrary: duplicateKeys(endpoint), weight: 3 },
    { arbitrary: protoKeys(endpoint), weight: 2 },
    { arbitrary: deepNesting(endpoint), weight: 3 },
    { arbitrary: unsafeText(endpoint), weight: 4 },
    { arbitrary: invalidUtf8(endpoint), weight: 2 },
    { arbitrary: sloppyIds(endpoint), weight: 4 },
    { arbitrary: bombs(endpoint), weight: 1 },
    { arbitrary: hugeValues(endpoint), weight: 1 },
    { arbitrary: mediaTypes(endpoint), weight: 2 },
    { arbitrary: enumNames(endpoint), weight: 2 },
    { arbitrary: snakeCase(endpoint), weight: 1 },
    { arbitrary: wrongLength(endpoint), weight: 2 },
    { arbitrary: truncatedGzip(endpoint), weight: 2 },
    { arbitrary: emptyBodies(endpoint), weight: 1 },
    { arbitrary: timestamps(endpoint), weight: 4 },
    { arbitrary: anyValue(endpoint), weight: 6 },
  );

const ENCODERS = { gzip: gzipSync, deflate: deflateSync } as const;

/**
 * Sent as is, or compressed as OTel exporters do by default: the checks behind the inflater
 * (size, depth, UTF-8, prototype keys) must be the same ones.
 */
export const badInput = (endpoint: Endpoint): fc.Arbitrary<FuzzCase> =>
  fc
    .tuple(badInputClass(endpoint), fc.constantFrom<'identity' | keyof typeof ENCODERS>('identity', 'identity', 'gzip', 'deflate'))
    .map(([fuzzCase, encoding]): FuzzCase => {
      if (encoding === 'identity') return fuzzCase;
      return {
        ...fuzzCase,
        detail: `${fuzzCase.detail}, ${encoding}`,
        build: (seed) => {
          const request = fuzzCase.build(seed);
          if (request.headers['content-encoding']) return request;
          const body = ENCODERS[encoding](request.body);
          const contentLength = request.contentLength === undefined ? undefined : body.length + request.contentLength - request.body.length;
          return { ...request, body, headers: { ...request.headers, 'content-encoding': encoding }, contentLength };
        },
      };
    });

/** A valid request of the endpoint: what must still go through, and become visible, after the fuzz. */
export const validRequest = (endpoint: Endpoint, seed: string): FuzzRequest => json(endpoint, JSON.stringify(BODIES[endpoint](seed)));
