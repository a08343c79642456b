// One Jest run for the whole workspace. Tiers by suffix: *.spec.ts (unit), *.int.spec.ts (real
// NATS and adapters), *.e2e.spec.ts (whole stack over HTTP). TS is compiled by swc for speed;
// type checking is `npm run typecheck`.
const { readFileSync } = require('node:fs');
const paths = JSON.parse(readFileSync(__dirname + '/tsconfig.base.json', 'utf8')).compilerOptions.paths;
const moduleNameMapper = Object.fromEntries(
  Object.entries(paths).map(([alias, [target]]) => [`^${alias.replace('/', '\\/')}$`, `<rootDir>/${target}`]),
);

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/tools', '<rootDir>/bench'],
  testMatch: ['**/*.spec.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', {
      jsc: {
        parser: { syntax: 'typescript', decorators: true },
        transform: { legacyDecorator: true, decoratorMetadata: true },
        target: 'es2022',
        keepClassNames: true,
      },
      module: { type: 'commonjs' },
    }],
  },
  moduleNameMapper,
  testTimeout: 30000,
  maxWorkers: 2,
  // Test names in the output show which adapter each contract suite ran against.
  verbose: true,
  // Child processes and NATS connections are stopped in afterAll hooks; this only guards CI
  // against a stray handle keeping the run open after every result is in.
  forceExit: true,
};
