import type * as Ink from 'ink';

let loaded: typeof Ink | undefined;

/**
 * Ink is an ES module whose dependencies use top-level await, which `require()` cannot load;
 * this CommonJS build keeps `import()` as a real dynamic import, so Ink is loaded once here
 * before the first render and the components read it through `ink()`.
 */
export async function loadInk(): Promise<typeof Ink> {
  loaded ??= await import('ink');
  return loaded;
}

export function ink(): typeof Ink {
  if (!loaded) throw new Error('Ink is used before loadInk() resolved');
  return loaded;
}

