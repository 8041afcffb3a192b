// ESLint (flat config) with typescript-eslint, type-aware. `npm run lint`, part of `npm test`.
// A small set of rules, each of which catches real bugs (style is left to the formatter and to
// review): promises that are dropped or misused, dead code, loose equality, fall-through.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

/** Rules that need no type information: for TypeScript and the JavaScript scripts alike. */
const syntacticRules = {
  // `==` only where it is the idiom: `x == null` (null or undefined), typeof and literal compares.
  eqeqeq: ['error', 'smart'],
  // A `case` that runs into the next one without a `// falls through` comment is a bug.
  'no-fallthrough': 'error',
};

/** Unused names: `_`-prefixed ones are deliberate (an argument a callback must accept, say). */
const unusedVarsOptions = {
  args: 'after-used',
  argsIgnorePattern: '^_',
  varsIgnorePattern: '^_',
  caughtErrors: 'all',
  caughtErrorsIgnorePattern: '^_',
  destructuredArrayIgnorePattern: '^_',
  ignoreRestSiblings: true,
};

export default defineConfig(
  {
    ignores: [
      '**/node_modules/**',
      'dist/**',
      'out/**',
      'grammar/**',
      '.e2e/**',
      'test/e2e/artifacts/**',
      'bench/results/**',
    ],
  },
  {
    files: ['**/*.ts', '**/*.mts', '**/*.cts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        // Type information from the nearest tsconfig.json of each file (the root one, or a
        // test fixture's own).
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      ...syntacticRules,
      // A promise nobody awaits or handles: its rejection is lost (or crashes the process) and
      // its work races what follows. Await it, return it, `.catch` it, or `void` it on purpose.
      // node:test's top-level `test()`/`describe()` return promises the runner itself tracks;
      // a subtest's `t.test()` is not exempt (it must be awaited, or it is cancelled).
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      // A promise where a boolean or a void callback is expected: `if (asyncFn())` is always
      // true; an async listener's rejection goes nowhere.
      '@typescript-eslint/no-misused-promises': 'error',
      // `await` on something that is not a promise: usually a missing call or a wrong type.
      '@typescript-eslint/await-thenable': 'error',
      // Rejecting with a non-Error loses the stack and breaks `err instanceof Error` handlers.
      'prefer-promise-reject-errors': 'off',
      '@typescript-eslint/prefer-promise-reject-errors': 'error',
      // An assertion the types already guarantee hides the place where they stop doing so.
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      // `require()` returns `any`: what it loads goes unchecked. The few deliberate ones (lazy or
      // optional loads) say so with a disable comment.
      '@typescript-eslint/no-require-imports': 'error',
      'no-unused-vars': 'off',
      '@typescript-eslint/no-unused-vars': ['error', unusedVarsOptions],
      // `a && b;`, `x.y;`: a statement that does nothing is a forgotten call or assignment.
      'no-unused-expressions': 'off',
      '@typescript-eslint/no-unused-expressions': 'error',
    },
  },
  {
    // The library's boundaries: its public entry and the ports the VM sees the world through.
    // An `any` here leaks into every client and adapter unchecked.
    files: ['runtime/index.ts', 'runtime/ports/**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      ...syntacticRules,
      'no-unused-vars': ['error', unusedVarsOptions],
      'no-unused-expressions': 'error',
    },
  },
);
