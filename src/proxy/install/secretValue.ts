/**
 * Where a secret an install was given goes. The one seam for the secret store: today the
 * value stays in the entry (the config file is private, 0600) and the plan says so; with a
 * store, this writes it there and returns the `${secret:NAME}` reference the entry keeps.
 */
export interface StoredSecret {
  /** What the entry holds for it. */
  value: string;
  /** Where the value is kept: `config` (in the 0600 file) or `store`. */
  kept: 'config' | 'store';
}

export async function storeSecretValue(
  _serverId: string,
  _where: 'env' | 'headers',
  _key: string,
  value: string,
): Promise<StoredSecret> {
  return { value, kept: 'config' };
}
