/**
 * The error of an unusable config, in a module of its own so that the CLI's entry can test
 * for it without loading the config schemas (zod) at every start, `--version` included.
 */

/** Thrown for any unusable config; `issues` lists every problem, each safe to log. */
export class ConfigError extends Error {
  readonly issues: string[];
  constructor(issues: string[], source?: string) {
    const head = `invalid MCP config${source ? ` in ${source}` : ''}`;
    super(issues.length === 1 ? `${head}: ${issues[0]}` : `${head}:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
    this.issues = issues;
  }
}
