// Nest 12 is ESM-only; @swc/jest compiles both our TypeScript and those packages to CommonJS.
const transform = {
  '^.+\\.(t|j|mj)s$': [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
      },
      module: { type: 'commonjs' },
    },
  ],
};
const common = {
  transform,
  // The OTLP exporter loads `http` with a dynamic import(), which jest's CommonJS runtime only
  // runs under --experimental-vm-modules; swc turns it into a require().
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|p-limit|yocto-queue|cookie|@fastify/compress|uuid|@opentelemetry/otlp-exporter-base|request-filtering-agent)/)',
  ],
  moduleNameMapper: {
    '^@app/(domain|otlp|eventlog|persistence|projections|config|metrics|evaluation)$': '<rootDir>/libs/$1/src/index.ts',
    '^@app/(domain|otlp|eventlog|persistence|projections|config|metrics|evaluation)/(.*)$': '<rootDir>/libs/$1/src/$2',
    '^@app/migrations$': '<rootDir>/migrations/index.ts',
  },
  testEnvironment: 'node',
};
module.exports = {
  maxWorkers: 2,
  // A global option: jest ignores it inside a project. End-to-end tests start real apps.
  testTimeout: 60_000,
  projects: [
    {
      ...common,
      displayName: 'unit',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.spec.ts'],
      testPathIgnorePatterns: ['\\.int\\.spec\\.ts$'],
    },
    {
      ...common,
      displayName: 'int',
      testMatch: ['<rootDir>/{apps,libs,tools}/**/*.int.spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
    },
    {
      ...common,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/**/*.e2e-spec.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
    },
    // The fault suite starts its own nats-server and Postgres and breaks them for minutes: only
    // `npm run test:faults` (SPANLOG_FAULTS=1) includes it, so `jest` and `npm test` stay fast.
    // Its globalSetup only looks for the binaries: it uses none of the shared services.
    ...(process.env.SPANLOG_FAULTS === '1'
      ? [
          {
            ...common,
            displayName: 'faults',
            testMatch: ['<rootDir>/test/faults/**/*.fault-spec.ts'],
            globalSetup: '<rootDir>/test/faults/global-setup.ts',
          },
        ]
      : []),
    // The cluster suite runs three nats-servers of its own, two APIs and two processors, and kills
    // some of them: only `npm run test:cluster` (SPANLOG_CLUSTER=1) includes it.
    ...(process.env.SPANLOG_CLUSTER === '1'
      ? [
          {
            ...common,
            displayName: 'cluster',
            testMatch: ['<rootDir>/test/cluster/**/*.cluster-spec.ts'],
            globalSetup: '<rootDir>/test/cluster/global-setup.ts',
          },
        ]
      : []),
  ],
};
