/** Largest delay `setTimeout` honours; bigger values fire at once, so they are rejected (config and command line alike). */
export const MAX_TIMEOUT_MS = 2_147_483_647;
