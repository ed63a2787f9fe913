// Type-aware checks for bugs the compiler lets through: a promise nobody awaits loses its
// error, a promise handed to a callback that expects void is never awaited, and a new union
// member silently falls out of a switch. Run by `npm run lint` and so by `npm test`.
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**'] },
  {
    files: ['{apps,libs,test,tools,bench,migrations}/**/*.{ts,tsx}'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // A control character in a regex is usually a slip; the sanitizers that mean one say so.
      'no-control-regex': 'error',
    },
  },
);
