/**
 * The jobs a worker holds per webhook URL, calling or waiting for a call slot. A URL that
 * stalls holds its jobs for minutes; with a share each, it can take only its own part of
 * the worker, and its further jobs are deferred instead of crowding out other URLs' jobs.
 */
export class UrlShares {
  private readonly held = new Map<string, number>();

  constructor(private readonly perUrl: number) {}

  /** Takes one of `url`'s shares; false when it has none left. */
  take(url: string): boolean {
    const n = this.held.get(url) ?? 0;
    if (n >= this.perUrl) return false;
    this.held.set(url, n + 1);
    return true;
  }

  /** Gives back a share taken with `take`; a URL with none held is forgotten, so the map holds only URLs in use. */
  release(url: string): void {
    const n = (this.held.get(url) ?? 0) - 1;
    if (n > 0) this.held.set(url, n);
    else this.held.delete(url);
  }
}
