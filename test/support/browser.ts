import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Debian's Chromium, installed when missing (as root; the test machines are), or one clear line why not. */
export function ensureChromium(): void {
  if (existsSync(CHROMIUM)) return;
  try {
    execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], { stdio: 'ignore', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch (err) {
    throw new Error(`browser tests need ${CHROMIUM}: \`apt-get install -y chromium\` failed (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); install it as root and run again`);
  }
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
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-quic', '--no-first-run', '--disable-sync'],
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}
