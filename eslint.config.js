// A few rules that catch bugs the type checker cannot, over everything `npm run typecheck` checks.
// The type-aware ones (they read tsconfig.check.json) matter most for an eval harness: a promise
// nobody awaits is an assertion that can never fail its test, or a cleanup that never finishes.
// Formatting is prettier's job (.prettierrc.json), not a rule here.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // plain JS here is test servers and fixtures run as child processes, outside the TS program
  { ignores: ['dist/**', 'node_modules/**', '**/*.js', '**/*.mjs'] },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { project: './tsconfig.check.json', tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // node:test's test() returns a promise the runner itself awaits
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'describe', 'it', 'suite'] },
          ],
        },
      ],
      // `if (promise)` is always true; an async callback where void is expected is allowed (t.after, event handlers)
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: false }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      'no-control-regex': 'error',
      eqeqeq: 'error',
      'prefer-const': 'error',
    },
  },
);
