import type * as Ink from 'ink';

let loaded: typeof Ink | undefined;

/**
 * Ink is an ES module whose dependencies use top-level await, which `require()` cannot load;
 * this CommonJS build keeps `import()` as a real dynamic import, so Ink is loaded once here
 * before the first render and the components read it through `ink()`.
 */
export async function loadInk(): Promise<typeof Ink> {
  showFramesUnderCi();
  loaded ??= await import('ink');
  return loaded;
}

export function ink(): typeof Ink {
  if (!loaded) throw new Error('Ink is used before loadInk() resolved');
  return loaded;
}

/**
 * Ink draws nothing but the last frame when `CI` or `CONTINUOUS_INTEGRATION` is set (it reads
 * them once, when loaded). The TUI runs only on a terminal, so someone at that terminal asked
 * for it: a CI variable exported in their shell (or a CI job driving a terminal) must not
 * leave them a blank screen. '0' is the value Ink's check reads as "not CI".
 */
function showFramesUnderCi(): void {
  for (const name of ['CI', 'CONTINUOUS_INTEGRATION']) {
    if (name in process.env) process.env[name] = '0';
  }
}
