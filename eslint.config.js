// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'scripts/', 'release/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: { 'no-console': 'error' },
  },
  // Layers: imports point inward only (core ← ports ← adapters / engine ← surfaces).
  ...[
    ['src/core/**', ['ports', 'adapters', 'engine', 'surfaces', 'testing']],
    ['src/ports/**', ['adapters', 'engine', 'surfaces', 'testing']],
    ['src/adapters/**', ['engine', 'surfaces', 'testing']],
    ['src/engine/**', ['adapters', 'surfaces', 'testing']],
  ].map(([files, outer]) => ({
    files: [/** @type {string} */ (files)],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `(^|/)(${/** @type {string[]} */ (outer).join('|')})/`,
              message: 'Imports point inward only: core ← ports ← adapters / engine ← surfaces.',
            },
          ],
        },
      ],
    },
  })),
  {
    files: ['eslint.config.js'],
    extends: [tseslint.configs.disableTypeChecked],
  },
);
