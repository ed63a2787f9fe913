import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { CliError } from './output';

type Input = Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };

const ENTER = new Set(['\r', '\n', '\u0004']);
const CTRL_C = '\u0003';
const BACKSPACE = new Set(['\u007f', '\b']);

/**
 * Asks for a password on a terminal, without echoing it. When standard input is not a
 * terminal (a pipe in a script or a test) nobody reads a prompt: the password is the first
 * line of the input, and stderr stays free for the one error line.
 */
export function readPassword(prompt: string, input: Input = process.stdin, output: Writable = process.stderr): Promise<string> {
  if (!input.isTTY || !input.setRawMode) return readLine(input);
  output.write(prompt);
  return readHidden(input, output);
}

function readLine(input: Input): Promise<string> {
  return new Promise((resolve) => {
    const lines = createInterface({ input, terminal: false });
    let answer = '';
    lines.once('line', (line) => {
      answer = line;
      lines.close();
    });
    lines.once('close', () => resolve(answer));
  });
}

function readHidden(input: Input, output: Writable): Promise<string> {
  return new Promise((resolve, reject) => {
    let value: string[] = [];
    const finish = () => {
      input.off('data', onData);
      input.setRawMode?.(false);
      input.pause();
      output.write('\n');
    };
    const onData = (chunk: Buffer | string) => {
      // Array.from splits by code point, so a backspace removes a whole emoji, not half of it.
      for (const char of Array.from(chunk.toString())) {
        if (ENTER.has(char)) {
          finish();
          resolve(value.join(''));
          return;
        }
        if (char === CTRL_C) {
          finish();
          reject(new CliError('cancelled'));
          return;
        }
        value = BACKSPACE.has(char) ? value.slice(0, -1) : [...value, char];
      }
    };
    input.setRawMode?.(true);
    input.on('data', onData);
    input.resume();
  });
}
