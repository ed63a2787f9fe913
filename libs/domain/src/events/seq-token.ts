import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto';

/** Read-your-writes (CONTRACT): a stream and the sequence of a write in it. */
export interface SeqToken {
  stream: 'ingest';
  seq: number;
}

const STREAMS: SeqToken['stream'][] = ['ingest'];
const VERSION = 'v1.';
/** A block: seven check bytes, the stream, the sequence. */
const CHECK = Buffer.from('spanlog');
const BLOCK_BYTES = 16;
const SEALED = /^v1\.[A-Za-z0-9_-]{22}$/;

/**
 * Seals and opens the `Spanlog-Seq` token. A sequence is a position in a stream every tenant
 * shares: in clear it would tell a client how much all the others write. One AES-256 block
 * (a keyed permutation; key derived from the deployment's secret) over the sequence and seven
 * check bytes keeps it exact for every API replica, says nothing to a client, and cannot be
 * forged: a made-up token opens to the check bytes once in 2^56. The same write gets the same
 * token, so a client sees that a retried request landed where the first one did.
 */
export class SeqTokenCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    this.key = Buffer.from(hkdfSync('sha256', secret, 'spanlog', 'spanlog read-your-writes token v1', 32));
  }

  encode(token: SeqToken): string {
    const block = Buffer.alloc(BLOCK_BYTES);
    CHECK.copy(block, 0);
    block.writeUInt8(STREAMS.indexOf(token.stream), CHECK.length);
    block.writeBigUInt64BE(BigInt(token.seq), CHECK.length + 1);
    return `${VERSION}${this.run(createCipheriv('aes-256-ecb', this.key, null), block).toString('base64url')}`;
  }

  /** The token, or null for anything this deployment did not seal. */
  decode(value: string): SeqToken | null {
    const text = value.trim();
    if (!SEALED.test(text)) return null;
    const sealed = Buffer.from(text.slice(VERSION.length), 'base64url');
    if (sealed.length !== BLOCK_BYTES) return null;
    const block = this.run(createDecipheriv('aes-256-ecb', this.key, null), sealed);
    if (!block.subarray(0, CHECK.length).equals(CHECK)) return null;
    const stream = STREAMS[block.readUInt8(CHECK.length)];
    const seq = block.readBigUInt64BE(CHECK.length + 1);
    if (stream === undefined || seq > BigInt(Number.MAX_SAFE_INTEGER)) return null;
    return { stream, seq: Number(seq) };
  }

  /** One block through the cipher, no padding: the block is exactly one. */
  private run(cipher: ReturnType<typeof createCipheriv>, block: Buffer): Buffer {
    cipher.setAutoPadding(false);
    return Buffer.concat([cipher.update(block), cipher.final()]);
  }
}
