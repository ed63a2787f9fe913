/**
 * A round of work every `intervalMs`, never two at once (a round still running when the next
 * is due makes it skip), and a stop that waits for the round in progress, so that a shutdown
 * never cuts one off halfway. Rounds handle their own errors.
 */
export class PeriodicRound {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly round: () => Promise<void>) {}

  start(intervalMs: number): void {
    this.timer = setInterval(() => {
      this.running ??= this.round().finally(() => (this.running = null));
    }, intervalMs);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
