/** Builds the status panel into `outDir` (default `<repo>/dist/renderer`); resolves to that directory. */
export function buildRenderer(options?: { outDir?: string; minify?: boolean }): Promise<string>;
