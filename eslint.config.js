// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The benches (`maker bench …`) measure adapters and the engine themselves (a ref publisher's
 * throughput, the vote at a million steps, a sim tree's saves), not a use case: they may import
 * them directly. Every other surface reaches them through src/app/.
 */
const BENCHES = ['src/surfaces/bench/**'];

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
  // A function does one job: at most 80 lines (blank lines and comments not counted). The offline
  // world's fake servers (src/offline/) are exempt: each is one routing table of a real protocol.
  {
    files: ['src/**/*.ts'],
    ignores: ['src/offline/**'],
    rules: {
      'max-lines-per-function': [
        'error',
        { max: 80, skipBlankLines: true, skipComments: true, IIFEs: true },
      ],
    },
  },
  // Layers: imports point inward only (core ← ports ← adapters / engine ← app ← surfaces). The
  // surfaces reach adapters and the engine through app/ (the use cases and their wiring).
  ...[
    ['src/core/**', ['ports', 'adapters', 'engine', 'app', 'surfaces', 'offline']],
    ['src/ports/**', ['adapters', 'engine', 'app', 'surfaces', 'offline']],
    ['src/adapters/**', ['engine', 'app', 'surfaces', 'offline']],
    ['src/engine/**', ['adapters', 'app', 'surfaces', 'offline']],
    // The offline world (offline/) is the product's own: the demo's wiring serves its fakes.
    ['src/app/**', ['surfaces']],
    ['src/surfaces/**', ['adapters', 'engine'], BENCHES],
  ].map(([files, outer, ignores]) => ({
    files: [/** @type {string} */ (files)],
    ...(ignores === undefined ? {} : { ignores: /** @type {string[]} */ (ignores) }),
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: `(^|/)(${/** @type {string[]} */ (outer).join('|')})/`,
              message:
                'Imports point inward only: core ← ports ← adapters / engine ← app ← surfaces.',
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
