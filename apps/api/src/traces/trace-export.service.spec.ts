import type { Logger } from 'pino';
import { EXPORT_LIMITS } from '@app/domain';
import { TraceExportService } from './trace-export.service';
import type { TraceExportQueryDto } from './trace-query.dto';
import type { TracesService } from './traces.service';

/** Traces as TracesService.exportTraces yields them, as far as the export reads them. */
async function* threeTraces() {
  for (const id of ['a', 'b', 'c']) yield { id, name: id, input: null, output: null };
}

function exporter() {
  const info = jest.fn();
  const traces = { exportTraces: threeTraces } as unknown as TracesService;
  return { service: new TraceExportService(traces, { info } as unknown as Logger), info };
}

const read = async (stream: NodeJS.ReadableStream) => {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
};

describe(TraceExportService.name, () => {
  afterEach(() => jest.restoreAllMocks());

  it('writes each trace as a JSONL line and logs a complete export', async () => {
    const { service, info } = exporter();
    const text = await read(service.stream('p', { format: 'jsonl' } as TraceExportQueryDto, 'req-1'));
    expect(
      text
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l).id),
    ).toEqual(['a', 'b', 'c']);
    expect(info).toHaveBeenCalledWith(expect.objectContaining({ reqId: 'req-1', traces: 3, outcome: 'complete' }), 'trace export ended');
  });

  it('fails the stream at the time bound, so the client sees a cut transfer, and logs it', async () => {
    const { service, info } = exporter();
    const start = Date.now();
    const now = jest.spyOn(Date, 'now').mockReturnValue(start);
    const stream = service.stream('p', { format: 'csv' } as TraceExportQueryDto, 'req-2');
    const rows: string[] = [];
    stream.on('data', (chunk: Buffer) => {
      rows.push(String(chunk));
      // Past the bound once the first trace is written.
      now.mockReturnValue(start + EXPORT_LIMITS.maxDurationMs + 1);
    });
    await expect(new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject))).rejects.toThrow(
      /export cut after 900 seconds/,
    );
    expect(info).toHaveBeenCalledWith(expect.objectContaining({ outcome: 'time limit' }), 'trace export ended');
    expect(info.mock.calls[0][0].traces).toBeLessThan(3);
  });
});
