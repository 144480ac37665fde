/**
 * The token store's encryption in the app: AES-256-GCM under a key the app keeps encrypted
 * with Electron's safeStorage (src/main/config/oauthStoreKey.ts) and hands to the bridge in
 * `QIMING_OAUTH_KEY` (the environment, never argv; servers never inherit it). A file is
 * `QMO1` + 12-byte IV + 16-byte tag + ciphertext. Without the key the store is plain JSON
 * in 0600 files.
 */
import { crypto, type SecretCodec } from './oauthStore.js';
import { OAUTH_KEY_ENV } from '../common/envNames.js';

const MAGIC = Buffer.from('QMO1');

export function aesCodec(key: Buffer): SecretCodec {
  if (key.length !== 32) throw new Error('the token store key must be 32 bytes');
  return {
    name: 'aes-256-gcm',
    encode(text) {
      const iv = crypto().randomBytes(12);
      const c = crypto().createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([c.update(text, 'utf8'), c.final()]);
      return Buffer.concat([MAGIC, iv, c.getAuthTag(), body]);
    },
    decode(data) {
      if (!data.subarray(0, 4).equals(MAGIC)) throw new Error('not an encrypted record');
      const d = crypto().createDecipheriv('aes-256-gcm', key, data.subarray(4, 16));
      d.setAuthTag(data.subarray(16, 32));
      return Buffer.concat([d.update(data.subarray(32)), d.final()]).toString('utf8');
    },
  };
}

/** The codec named by `QIMING_OAUTH_KEY` (base64 of 32 bytes), or undefined when unset or malformed. */
export function codecFromEnv(env: NodeJS.ProcessEnv = process.env): SecretCodec | undefined {
  const raw = env[OAUTH_KEY_ENV];
  if (!raw) return undefined;
  const key = Buffer.from(raw, 'base64');
  return key.length === 32 ? aesCodec(key) : undefined;
}
