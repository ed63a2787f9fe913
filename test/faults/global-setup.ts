import { MissingBinaryError, findBinaries } from './services';

/** Before the fault suite: nats-server and Postgres binaries must be there, or one line says what is missing. */
export default function globalSetup(): void {
  try {
    findBinaries();
  } catch (err) {
    if (!(err instanceof MissingBinaryError)) throw err;
    process.stderr.write(`\n${err.message}\n`);
    process.exit(1);
  }
}
