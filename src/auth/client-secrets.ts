/**
 * Client secrets are stored as scrypt hashes (node:crypto), never in plain text, and compared
 * in constant time.
 */
import { createHash, randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const PARAMETERS = { N: 16384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
/** 256 bits: guessing one is out of reach whatever the failure delays allow. */
const SECRET_BYTES = 32;

/** A new client secret, URL- and form-safe (base64url), to be shown once and then hashed. */
export function generateClientSecret(): string {
  return randomBytes(SECRET_BYTES).toString('base64url');
}

function derive(secret: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(secret, salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );
}

/** `scrypt$N$r$p$salt$hash` with base64 salt and hash. */
export async function hashClientSecret(secret: string, salt = randomBytes(16)): Promise<string> {
  const key = await derive(secret, salt, PARAMETERS);
  const { N, r, p } = PARAMETERS;
  return ['scrypt', N, r, p, salt.toString('base64'), key.toString('base64')].join('$');
}

export async function verifyClientSecret(secret: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !N || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await derive(secret, Buffer.from(salt, 'base64'), {
    N: Number(N),
    r: Number(r),
    p: Number(p),
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * What a token carries of the secret its client had when it was issued (the claim `gen`): a
 * digest of the stored hash, which nothing can be learnt from. A client that is deleted and
 * added again under the same id (a reseed's demo partner) has a new salt, so a new generation,
 * and the tokens of the one before no longer match it.
 */
export function clientGeneration(secretHash: string): string {
  return createHash('sha256').update(secretHash).digest('base64url').slice(0, 16);
}
