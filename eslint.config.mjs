import nx from '@nx/eslint-plugin';

const boundaries = (libExtra) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow: [],
    depConstraints: [
      { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:lib', ...libExtra] },
      { sourceTag: 'type:lib', onlyDependOnLibsWithTags: ['type:lib', ...libExtra] },
      { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:lib', 'type:testing'] },
    ],
  },
];

/** `pkg/lib/...`, `@scope/pkg/dist/...` and the like: a package's build output or sources, not its API. */
export const PRIVATE_DEPENDENCY_PATH = '^(@[^/]+/)?[^@./][^/]*/(lib|dist|src|internal|build|esm|cjs)(/|$)';

export default [
  { ignores: ['**/node_modules/**', '**/dist/**', '.data/**', '.nx/**', '**/generated/**', 'coverage/**'] },
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  {
    files: ['**/*.ts'],
    rules: {
      // Production code never reaches test helpers; apps never import apps (apps carry no lib tag).
      '@nx/enforce-module-boundaries': boundaries([]),
      '@typescript-eslint/consistent-type-imports': ['error', { prefer: 'type-imports', fixStyle: 'inline-type-imports', disallowTypeAnnotations: false }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      // A dependency's files behind its entry points are its internals, free to change in any
      // release: import what it publishes (its entry point, or the subpaths it documents).
      'no-restricted-imports': ['error', { patterns: [{ regex: PRIVATE_DEPENDENCY_PATH, message: 'private module path of a dependency: import its public entry point instead' }] }],
      // Replacing a method on a class's prototype patches it for every user in the process.
      'no-restricted-syntax': [
        'error',
        { selector: "AssignmentExpression > MemberExpression.left > MemberExpression.object[property.name='prototype']", message: 'no prototype assignment: wrap or subclass instead of patching a class' },
      ],
    },
  },
  {
    // Nest resolves constructor parameters from emitted decorator metadata: a type-only import
    // would erase the class the injector needs, so injected classes stay value imports there.
    files: ['apps/**/*.ts', 'libs/service-kit/**/*.ts'],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
  },
  {
    files: ['**/*.spec.ts', '**/*.bench.ts', '**/test/**/*.ts', '**/*.contract.ts', '**/test-double/**/*.ts', 'libs/testing/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@nx/enforce-module-boundaries': boundaries(['type:testing']),
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', fetch: 'readonly' } },
  },
];
