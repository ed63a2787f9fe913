import type { Command } from 'commander';
import {
  ChunkReader,
  type DeadLetter,
  PermanentMessageError,
  type StreamMessage,
  deadLetterOf,
  getDeadLetter,
  readDeadLetters,
} from '@app/eventlog';
import { assertSchemaCurrent } from '@app/persistence';
import { type DeadLetterRetry, UnknownDeadLetterError, retryDeadLetters } from '@app/projections';
import { withDatabase } from '../database';
import { withEventLog } from '../event-log';
import { sequenceOption } from '../options';
import { CliError, printResult, table } from '../output';

/** Exit code of a retry that left dead letters in the stream (1 is for errors). */
export const DLQ_RETRY_INCOMPLETE_EXIT_CODE = 2;

interface DeadLetterInFull extends DeadLetter {
  headers: Record<string, string>;
  /** The data as JSON, or null when it is not JSON or cannot be read. */
  data: unknown;
  /** The data as text when it is not JSON. */
  dataText?: string;
  /** Why `data` is null. */
  dataError?: string;
}

const source = (l: DeadLetter) => `${l.stream ?? '?'}/${l.consumer ?? '?'} #${l.seq ?? '?'}`;

/** Everything a dead letter holds, its data resolved from the object store when it lives there. */
async function inFull(msg: StreamMessage, chunks: ChunkReader): Promise<DeadLetterInFull> {
  const headers: Record<string, string> = {};
  for (const [k, v] of msg.headers ?? []) headers[k] = v.join(', ');
  const letter: DeadLetterInFull = { ...deadLetterOf(msg), headers, data: null };
  let bytes: Uint8Array;
  try {
    bytes = await chunks.read(msg);
  } catch (err) {
    if (!(err instanceof PermanentMessageError)) throw err;
    return { ...letter, dataError: err.message };
  }
  const text = new TextDecoder().decode(bytes);
  try {
    return { ...letter, data: JSON.parse(text) };
  } catch (err) {
    return { ...letter, dataText: text, dataError: `not JSON: ${(err as Error).message}` };
  }
}

const describeFull = (l: DeadLetterInFull): string =>
  [
    `dead letter ${l.id}, ${l.time}: from ${source(l)} on ${l.subject ?? '?'}`,
    `reason: ${l.reason ?? '(none given)'}`,
    ...Object.entries(l.headers).map(([k, v]) => `${k}: ${v}`),
    l.dataError ? `data: ${l.dataError}` : 'data:',
    l.dataText ?? JSON.stringify(l.data, null, 2),
  ].join('\n');

const describeRetry = (r: DeadLetterRetry): string => `dead letter ${r.id} (${source(r)}): ${r.outcome}${r.error ? `: ${r.error}` : ''}`;

export function registerDlqCommands(program: Command): void {
  const dlq = program.command('dlq').description('messages the consumers dead-lettered (operator: DATABASE_URL / NATS_URL)');

  dlq
    .command('list')
    .description('every dead letter: why, and which stream, consumer, sequence and subject it came from')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean }) => {
      const letters: DeadLetter[] = [];
      await withEventLog((nats) =>
        readDeadLetters(nats, { withData: false }, async (msgs) => void letters.push(...msgs.map(deadLetterOf))),
      );
      printResult(letters, !!opts.json, () =>
        table(letters.map((l) => [String(l.id), l.time, source(l), l.subject ?? '?', l.reason ?? ''])),
      );
    });

  dlq
    .command('show')
    .description('one dead letter in full, its data decoded when it is JSON')
    .requiredOption('--id <seq>', 'its sequence in the dead-letter stream (from dlq list)', sequenceOption('--id'))
    .option('--json', 'print JSON')
    .action(async (opts: { id: number; json?: boolean }) => {
      const letter = await withEventLog(async (nats) => {
        const msg = await getDeadLetter(nats, opts.id);
        if (!msg) throw new CliError(`no dead letter ${opts.id} in ${nats.layout.streamName('deadLetter')}`);
        return inFull(msg, new ChunkReader(nats.js, nats.layout));
      });
      printResult(letter, !!opts.json, () => describeFull(letter));
    });

  dlq
    .command('retry')
    .description(
      `apply dead letters again through the projection that dead-lettered them, removing each applied one; exit ${DLQ_RETRY_INCOMPLETE_EXIT_CODE} when any stays`,
    )
    .option('--id <seq>', 'only this one (from dlq list); all by default', sequenceOption('--id'))
    .option('--json', 'print JSON')
    .action(async (opts: { id?: number; json?: boolean }) => {
      const result = await withEventLog((nats) =>
        withDatabase(async (ds) => {
          await assertSchemaCurrent(ds);
          try {
            return await retryDeadLetters(ds, nats, {
              id: opts.id,
              onRetried: opts.json ? undefined : (r) => process.stderr.write(`${describeRetry(r)}\n`),
            });
          } catch (err) {
            if (err instanceof UnknownDeadLetterError) throw new CliError(err.message);
            throw err;
          }
        }),
      );
      printResult(
        result,
        !!opts.json,
        () => `${result.applied} applied and removed, ${result.failed} failed again, ${result.kept} kept (no way to apply them again)`,
      );
      if (result.failed || result.kept) process.exitCode = DLQ_RETRY_INCOMPLETE_EXIT_CODE;
    });
}
