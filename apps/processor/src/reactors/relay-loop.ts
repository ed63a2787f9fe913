import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';

const BATCH = 500;
const IDLE_MS = 250;

/**
 * Drains an outbox table into a stream for as long as it runs: a full batch is followed at
 * once by the next, a short one by a pause; a failure is logged and tried again.
 */
export class RelayLoop {
  private stopping = false;
  private loop: Promise<void> | null = null;

  constructor(
    private readonly what: string,
    /** Moves up to `limit` rows; resolves with how many it moved. */
    private readonly relay: (limit: number) => Promise<number>,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.loop = this.run();
  }

  /** Ends after the batch in hand. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.loop;
  }

  private async run(): Promise<void> {
    while (!this.stopping) {
      try {
        const moved = await this.relay(BATCH);
        if (moved < BATCH) await sleep(IDLE_MS);
      } catch (err) {
        this.logger.warn({ err: String(err) }, `${this.what} relay failed; retrying`);
        await sleep(1_000);
      }
    }
  }
}
