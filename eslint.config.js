import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', 'test/e2e/screenshots/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-imports': [
        'error',
        { paths: [{ name: 'electron', message: 'Only main/index.ts imports electron; pass the API in as a parameter.' }] },
      ],
    },
  },
  {
    // The one module that imports electron and hands it to the rest (STYLE "For Sello" 2).
    files: ['main/index.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    // The admin UI: plain ES modules in the browser, talking to core over HTTP only.
    files: ['renderer/**/*.js'],
    languageOptions: { sourceType: 'module', globals: { ...globals.browser } },
  },
  {
    files: ['**/*.mjs', '**/*.cjs', 'scripts/**'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
