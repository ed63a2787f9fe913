import { App, type AppProps } from './app';
import { loadInk } from './ink';

// The alternate screen, as full-screen programs (less, vim) use: leaving it gives the user
// back the terminal exactly as it was before the TUI started.
const ENTER_ALTERNATE_SCREEN = '\u001b[?1049h\u001b[H';
const LEAVE_ALTERNATE_SCREEN = '\u001b[?1049l';

const STOP_SIGNALS = { SIGTERM: 15, SIGHUP: 1 } as const;

/**
 * Runs the TUI until the user quits (q or Ctrl+C: exit code 0) or the process is told to
 * stop (SIGTERM, SIGHUP: 128 + the signal's number, as a shell reports it). Either way the
 * terminal is given back as it was.
 */
export async function runTui(props: AppProps): Promise<number> {
  const { render } = await loadInk();
  process.stdout.write(ENTER_ALTERNATE_SCREEN);
  const instance = render(<App {...props} />, { exitOnCtrlC: true });
  let exitCode = 0;
  const handlers = Object.entries(STOP_SIGNALS).map(([signal, number]) => {
    const handler = () => {
      exitCode = 128 + number;
      instance.unmount();
    };
    process.once(signal, handler);
    return () => process.off(signal, handler);
  });
  try {
    await instance.waitUntilExit();
  } finally {
    for (const remove of handlers) remove();
    process.stdout.write(LEAVE_ALTERNATE_SCREEN);
  }
  return exitCode;
}
