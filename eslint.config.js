// ESLint flat config: typescript-eslint's type-checked rules for TypeScript, react-hooks for the UI, and the
// project's layering as `no-restricted-imports` patterns (see STYLE.md, "Dependencies point one way").
//
// How to think about the layering block: each source folder gets ONE `no-restricted-imports` entry listing every
// layer it may not reach (flat config replaces a rule's options when two blocks match the same file, so the lists
// are built here rather than stacked). A forbidden layer is matched on its folder name anywhere in the import
// path (`../ui/App.tsx`, `../../gpu/device.ts`), so a move within a folder never trips it.
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const TS_FILES = ['**/*.ts', '**/*.tsx', '**/*.mts', '**/*.cts'];

/** Import patterns that reach React; only `src/ui/**` and `src/main.tsx` may use them. */
const REACT = ['react', 'react/*', 'react-dom', 'react-dom/*'];

/** Gitignore-style patterns for a project layer (a folder under src/) reached by a relative import. */
const layer = (name) => [`**/${name}`, `**/${name}/**`];

/** The `no-restricted-imports` rule for a folder that may not import `layers` (nor React unless `react`). */
function restrict(from, layers, { react = false } = {}) {
  const patterns = layers.map((name) => ({
    group: layer(name),
    message: `${from} may not import src/${name} (dependencies point one way: see STYLE.md).`,
  }));
  if (!react) patterns.push({ group: REACT, message: `Only src/ui (and src/main.tsx) imports React; ${from} may not.` });
  return { 'no-restricted-imports': ['error', { patterns }] };
}

export default defineConfig(
  { ignores: ['gpu-kit/**', 'dist/**', 'dist-*/**', 'test-results-*/**', 'node_modules/**', 'public/bundles/**', '.cache/**', 'test-results/**', 'playwright-report/**', 'e2e-artifacts/**', '.stryker-tmp/**', 'reports/**'] },

  // Every file: ESLint's recommended JavaScript rules, modern globals.
  js.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.es2021 } },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },

  // Plain JavaScript (configs, scripts, Node worker bootstraps): Node globals, no type information.
  {
    files: ['**/*.js', '**/*.mjs', '**/*.cjs'],
    languageOptions: { globals: { ...globals.node } },
  },

  // TypeScript: type-checked recommended rules through the project service (one tsconfig, fast enough on 2 cores).
  ...tseslint.configs.recommendedTypeChecked.map((config) => ({ ...config, files: TS_FILES })),
  {
    files: TS_FILES,
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.browser, ...globals.worker, ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // Error messages may print a value whose declared type was narrowed away: it came from JSON or a model.
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNever: true }],
      // An in-thread object offers the same async interface as its worker client (STYLE.md), so async methods
      // without an await are by design.
      '@typescript-eslint/require-await': 'off',
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // TypeScript reports undefined names itself, with the right globals for each file.
      'no-undef': 'off',
    },
  },

  // React: hooks rules (including the React Compiler checks) for the UI only.
  {
    files: ['src/ui/**/*.{ts,tsx}', 'src/main.tsx'],
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs['recommended-latest'].rules },
  },

  // Layering. Later blocks override earlier ones for the same file, so the general rule comes first.
  { files: ['src/**', 'tests/**', 'bench/**', 'scripts/**', 'bin/**'], rules: restrict('this file', []) },
  // The server (sqlenv serve) sits on top: only the CLI (and tests, benches, scripts) may import it.
  { files: ['src/**'], ignores: ['src/cli/**', 'src/server/**'], rules: restrict('this file', ['server']) },
  { files: ['src/server/**'], rules: restrict('src/server', ['ui', 'gpu', 'model', 'train', 'workers', 'cli']) },
  { files: ['src/env/**'], rules: restrict('src/env', ['ui', 'gpu', 'model', 'train', 'eval', 'policies', 'workers', 'server']) },
  { files: ['src/sql/**'], rules: restrict('src/sql', ['env', 'policies', 'eval', 'train', 'ui', 'gpu', 'model', 'server']) },
  { files: ['src/data/**'], rules: restrict('src/data', ['env', 'policies', 'eval', 'train', 'ui', 'gpu', 'model', 'server']) },
  { files: ['src/policies/**'], rules: restrict('src/policies', ['ui', 'train', 'eval', 'server']) },
  // src/util (the one lock, the one cancellation error) sits below every layer: it imports none of them.
  { files: ['src/util/**'], rules: restrict('src/util', ['sql', 'data', 'env', 'policies', 'eval', 'model', 'gpu', 'train', 'workers', 'ui', 'cli', 'server']) },
  { files: ['src/ui/**', 'src/main.tsx', 'tests/ui/**'], rules: { 'no-restricted-imports': 'off' } },
);
