import { readFileSync } from 'node:fs';

/** Resident memory of a process in MB, from /proc (Linux); null when it cannot be read. */
function rssMb(pid: number): number | null {
  try {
    const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : null;
  } catch {
    return null;
  }
}

export interface RssSampler {
  stop(): void;
  /** The largest sample so far. */
  maxMb(): number | null;
}

/** Samples a process's resident memory every `everyMs` until stopped: the peak is what an operator sizes for. */
export function sampleRss(pid: number, everyMs = 250): RssSampler {
  let max: number | null = rssMb(pid);
  const timer = setInterval(() => {
    const now = rssMb(pid);
    if (now !== null && (max === null || now > max)) max = now;
  }, everyMs);
  return { stop: () => clearInterval(timer), maxMb: () => max };
}
