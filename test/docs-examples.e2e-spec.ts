import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type DocExample, checkOutput, fencedBlocks, parseExamples, runnableBlocks } from '../tools/doc-examples';
import { brokenLinks } from '../tools/doc-links';
import { ROOT, type Stack, runCli, startStack } from './support/stack';

/**
 * Every runnable example of the documentation (the `sh` blocks of README.md and docs/*.md, see
 * tools/doc-examples.ts) runs against a fresh stack, the way a newcomer would run it after
 * `npm start`: the demo user and its `.spanlog/demo.json`, `spanlog` on the PATH, and the API's
 * address in place of http://127.0.0.1:3000.
 */

const DOCUMENTED_URL = 'http://127.0.0.1:3000';
const DEMO = { email: 'demo@spanlog.local', password: 'spanlog-demo', org: 'Demo', project: 'demo' };
/** Printed after each command with its index and exit status, to cut the page's output apart. */
const MARK = '\x1e';

/** The pages in the order a reader meets them, on one stack: the README first (later pages read the trace it sends), then docs/ by name. */
const PAGES = [
  'README.md',
  ...readdirSync(resolve(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];
const read = (page: string) => readFileSync(resolve(ROOT, page), 'utf8');

function examplesOf(page: string): DocExample[] {
  return runnableBlocks(read(page)).flatMap((block) => parseExamples(block.text, page, block.line));
}

/** One bash for the page, so variables set by one example serve the next. */
function pageScript(examples: DocExample[], url: string): string {
  return examples.map((e, i) => `${e.command.replaceAll(DOCUMENTED_URL, url)}\nprintf '\\n\\036%d %d\\036\\n' ${i} $?\n`).join('');
}

interface Ran {
  stdout: string;
  stderr: string;
}

async function runBash(script: string, cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  const child = spawn('bash', ['-c', script], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  await once(child, 'close');
  return { stdout, stderr };
}

/** Each example's output and exit status, by index. */
function outputs(stdout: string): Map<number, { output: string; status: number }> {
  const byIndex = new Map<number, { output: string; status: number }>();
  const marker = new RegExp(`\\n${MARK}(\\d+) (\\d+)${MARK}\\n`, 'g');
  let from = 0;
  for (const m of stdout.matchAll(marker)) {
    byIndex.set(Number(m[1]), { output: stdout.slice(from, m.index), status: Number(m[2]) });
    from = (m.index ?? 0) + m[0].length;
  }
  return byIndex;
}

describe('the documentation examples', () => {
  let stack: Stack;
  let home: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    stack = await startStack();
    home = mkdtempSync(join(tmpdir(), 'spanlog-docs-'));
    const demo = await runCli(
      ['admin', 'bootstrap', '--email', DEMO.email, '--password', DEMO.password, '--org', DEMO.org, '--project', DEMO.project, '--json'],
      stack.env,
    );
    if (demo.code !== 0) throw new Error(`bootstrap failed: ${demo.stderr}`);
    // Where npm start keeps the demo tenant; the examples read their key from it.
    mkdirSync(join(home, '.spanlog'));
    writeFileSync(join(home, '.spanlog', 'demo.json'), demo.stdout);
    const bin = join(home, 'bin');
    mkdirSync(bin);
    writeFileSync(
      join(bin, 'spanlog'),
      `#!/bin/sh\nexec "${process.execPath}" "${join(ROOT, 'dist', 'apps', 'cli', 'src', 'main.js')}" "$@"\n`,
    );
    chmodSync(join(bin, 'spanlog'), 0o755);
    env = { ...stack.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), PATH: `${bin}:${process.env.PATH}` };
    delete env.SPANLOG_API_KEY;
  }, 120_000);

  afterAll(async () => {
    if (home) rmSync(home, { recursive: true, force: true });
    await stack?.stop();
  });

  it('links only to files and headings that exist', () => {
    expect(PAGES.flatMap((page) => brokenLinks(resolve(ROOT, page)).map((broken) => `${page}: ${broken}`))).toEqual([]);
  });

  // The TUI needs a terminal (test/tui.e2e-spec.ts drives it in tmux); a synopsis has <placeholders> or [--options]; a transcript starts with `$ `.
  it('runs every example that talks to the server: curl only in sh blocks, spanlog elsewhere only as the TUI, a synopsis or a transcript', () => {
    const unrun = PAGES.flatMap((page) =>
      fencedBlocks(read(page))
        .filter((b) => b.info !== 'sh')
        .flatMap((b) =>
          b.text
            .split('\n')
            .map((line, i) => ({ line, where: `${page}:${b.line + i}` }))
            .filter(({ line }) => /\bcurl\b/.test(line) || (/^\s*(npx )?spanlog (?!tui\b)/.test(line) && !/<[\w-]+>|\[--/.test(line))),
        )
        .map(({ where, line }) => `${where}: ${line.trim()}`),
    );
    expect(unrun).toEqual([]);
  });

  it.each(PAGES.filter((page) => examplesOf(page).length > 0))(
    '%s: every example prints what the page says',
    async (page) => {
      const examples = examplesOf(page);
      const ran = await runBash(pageScript(examples, stack.baseUrl), home, env);
      const byIndex = outputs(ran.stdout);
      const failures = examples.flatMap((example, i) => {
        const result = byIndex.get(i);
        const head = `${example.where}: ${example.command.split('\n')[0]}`;
        if (!result) return [`${head}\n  did not run (bash stopped before it): ${ran.stderr.slice(-600)}`];
        if (result.status !== 0)
          return [`${head}\n  exited ${result.status}: ${result.output.slice(0, 600)}\n  stderr: ${ran.stderr.slice(-600)}`];
        const mismatches = example.expected ? checkOutput(example.expected, result.output) : [];
        return mismatches.length ? [`${head}\n  ${mismatches.join('\n  ')}`] : [];
      });
      expect(failures).toEqual([]);
    },
    300_000,
  );
});
