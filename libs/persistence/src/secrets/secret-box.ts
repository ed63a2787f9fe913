import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** The one format so far; a later one (another cipher, key rotation) gets its own prefix and this stays readable. */
const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBoxError extends Error {}

/** The bytes of `text` when it is exactly how base64url writes them: Buffer.from would skip stray characters and spare bits. */
function canonicalBase64Url(text: string): Buffer | null {
  const bytes = Buffer.from(text, 'base64url');
  return bytes.toString('base64url') === text ? bytes : null;
}

/**
 * Encrypts secrets for storage (evaluator headers and signing secrets): AES-256-GCM with a
 * random 96-bit IV per value, under a key derived (HKDF-SHA256) from SPANLOG_SECRET_KEY for
 * this use alone. A sealed value is `v1.<iv>.<ciphertext>.<tag>`, base64url. `context` names
 * what the value is (`evaluator:<id>:headers`) and is authenticated with it, so a value
 * copied into another row or column does not open there.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(secretKey: Buffer) {
    this.key = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'spanlog secrets at rest v1', 32));
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(context, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv, ciphertext, cipher.getAuthTag()]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** The plaintext of a sealed value; throws SecretBoxError when it is not one, was changed, or was sealed under another key or context. */
  open(sealed: string, context: string): string {
    const [version, iv, ciphertext, tag, ...rest] = sealed.split('.');
    if (version !== VERSION || rest.length || iv === undefined || ciphertext === undefined || tag === undefined) {
      throw new SecretBoxError(`not a sealed value of version ${VERSION}`);
    }
    const [ivBytes, ciphertextBytes, tagBytes] = [iv, ciphertext, tag].map(canonicalBase64Url);
    if (ivBytes?.length !== IV_BYTES || !ciphertextBytes || tagBytes?.length !== TAG_BYTES)
      throw new SecretBoxError('not a sealed value: bad encoding, IV or tag');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, ivBytes).setAAD(Buffer.from(context, 'utf8')).setAuthTag(tagBytes);
      return Buffer.concat([decipher.update(ciphertextBytes), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('the value does not open with this SPANLOG_SECRET_KEY (another key, another row, or changed)');
    }
  }
}
