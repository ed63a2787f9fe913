import { loadConfig } from '@app/config';
import { NatsResources } from '@app/eventlog';
import { CliError } from './output';

/** Opens the operator's NATS from NATS_URL (streams ensured), runs `work`, and always closes it. */
export async function withEventLog<T>(work: (nats: NatsResources) => Promise<T>): Promise<T> {
  const config = loadConfig();
  let nats: NatsResources;
  try {
    nats = await NatsResources.open(config, 'spanlog-cli', (line) => process.stderr.write(`spanlog: ${line}\n`));
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  try {
    return await work(nats);
  } finally {
    await nats.close();
  }
}
