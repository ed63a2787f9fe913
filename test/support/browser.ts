import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, type Page, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Runs apt-get; null when it succeeded, else the last line it wrote to stderr (apt's reason). */
function aptGet(args: string[]): string | null {
  const run = spawnSync('apt-get', args, {
    encoding: 'utf8',
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (run.status === 0) return null;
  const lines = (run.error?.message ?? run.stderr ?? '')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines[lines.length - 1] ?? `exit status ${run.status}`;
}

/**
 * Debian's Chromium, installed when missing (as root; the test machines are), or one clear line
 * why not. A fresh container has empty package lists, where install fails with "Unable to locate
 * package": the lists are then updated once and the install tried again.
 */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  const install = ['install', '-y', '--no-install-recommends', 'chromium'];
  let failure = aptGet(install);
  if (failure !== null) failure = aptGet(['update']) ?? aptGet(install);
  if (failure !== null)
    throw new Error(
      `browser tests need ${CHROMIUM}: apt-get could not install the Debian package chromium (${failure}); install it as root and run again`,
    );
  if (!existsSync(CHROMIUM)) throw new Error(`browser tests need ${CHROMIUM}: the Debian package chromium installed no such file`);
}

export interface Headless {
  context: BrowserContext;
  close(): Promise<void>;
}

/** A headless Chromium with a fresh profile, nothing phoning home, removed again by close(). */
export async function launchChromium(): Promise<Headless> {
  ensureChromium();
  const userDataDir = mkdtempSync(join(tmpdir(), 'spanlog-chromium-'));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1440, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-quic',
      '--no-first-run',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** Logs in through the dashboard's form and waits until it left the login page. */
export async function logInToDashboard(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.waitForURL('**/login');
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.waitForURL((url) => !url.pathname.endsWith('/login'));
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Whether two boxes (as `locator.boundingBox()` gives them) share any area; touching edges do not. */
export function intersects(a: Box, b: Box): boolean {
  return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/** Whether `inner` lies within `outer` (half a pixel of rounding allowed). */
export function contains(outer: Box, inner: Box): boolean {
  return (
    inner.x >= outer.x - 0.5 &&
    inner.y >= outer.y - 0.5 &&
    inner.x + inner.width <= outer.x + outer.width + 0.5 &&
    inner.y + inner.height <= outer.y + outer.height + 0.5
  );
}
