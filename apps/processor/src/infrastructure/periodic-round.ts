/**
 * A round of work every `intervalMs`, never two at once (a round still running when the next
 * is due makes it skip), and a stop that waits for the round in progress, so that a shutdown
 * never cuts one off halfway. Rounds handle their own errors.
 */
export class PeriodicRound {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(private readonly round: () => Promise<void>) {}

  /** The first round is due `firstDelayMs` after the start, one interval unless told. */
  start(intervalMs: number, firstDelayMs = intervalMs): void {
    const tick = () => {
      this.running ??= this.round().finally(() => (this.running = null));
    };
    this.timer = setTimeout(() => {
      this.timer = setInterval(tick, intervalMs);
      tick();
    }, firstDelayMs);
  }

  async stop(): Promise<void> {
    // Either timer: Node clears a timeout and an interval alike.
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
