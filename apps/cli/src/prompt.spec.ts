import { PassThrough } from 'node:stream';
import { readPassword } from './prompt';

const sink = () => {
  const out = new PassThrough();
  let written = '';
  out.on('data', (d: Buffer) => (written += d.toString()));
  return { out, written: () => written };
};

describe(readPassword.name, () => {
  it('takes the first line of a piped input, spaces kept, without a prompt nobody would see', async () => {
    const input = new PassThrough();
    const { out, written } = sink();
    const answer = readPassword('Password: ', input, out);
    input.end(' correct horse \nsecond line\n');
    await expect(answer).resolves.toBe(' correct horse ');
    expect(written()).toBe('');
  });

  it('answers an empty string when the input ends without a line', async () => {
    const input = new PassThrough();
    const answer = readPassword('Password: ', input, sink().out);
    input.end();
    await expect(answer).resolves.toBe('');
  });

  it('reads a terminal in raw mode without echo, honouring backspace, and restores the mode', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: jest.fn() });
    const { out, written } = sink();
    const answer = readPassword('Password: ', input, out);
    input.write('pa');
    input.write('sx\u007fs\r');
    await expect(answer).resolves.toBe('pass');
    expect(input.setRawMode.mock.calls).toEqual([[true], [false]]);
    expect(written()).toBe('Password: \n');
  });

  it('gives up on Ctrl-C', async () => {
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: jest.fn() });
    const answer = readPassword('Password: ', input, sink().out);
    input.write('se\u0003');
    await expect(answer).rejects.toThrow('cancelled');
  });
});
