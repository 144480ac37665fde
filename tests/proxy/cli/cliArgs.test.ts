// The command-line parser in-process (a pure function): the forms Node's util.parseArgs
// splits for us (`--flag=value`, `-cVALUE`, short groups, repeated `-H`), and the judgements
// that stay ours (unknown options, missing values, option terminator, per-mode flags).
// The built CLI's exit code 2 and usage text are checked in cliUsage.test.ts.
import { describe, expect, it } from 'vitest';
import { parseArgs, UsageError } from '../../../src/proxy/cli/cliArgs.js';

const CFG = '{"mcpServers":{}}';

function usageError(argv: string[]): string {
  try {
    parseArgs(argv);
  } catch (err) {
    expect(err).toBeInstanceOf(UsageError);
    return (err as Error).message;
  }
  throw new Error(`no UsageError for ${JSON.stringify(argv)}`);
}

describe('parseArgs token forms', () => {
  it('takes values separated, after =, and glued to a short flag', () => {
    expect(parseArgs(['--config', CFG]).config).toBe(CFG);
    expect(parseArgs([`--config=${CFG}`]).config).toBe(CFG);
    expect(parseArgs([`-c${CFG}`]).config).toBe(CFG);
    expect(parseArgs(['-c', CFG, '--idle-timeout=0']).idleTimeoutMs).toBe(0);
    // An empty value after = is a value (the config check then says what is wrong with it).
    expect(parseArgs(['--config=']).config).toBe('');
  });

  it('-H / --header repeat and keep the last value of a name; --allow-tools takes a comma list', () => {
    const o = parseArgs([
      'convert',
      'http://127.0.0.1:9/mcp',
      '-H',
      'A: 1',
      '--header=B: two: parts',
      '-H',
      'A: 3',
      '--allow-tools',
      ' x, y ,,z ',
    ]);
    expect(o.mode).toBe('convert');
    expect(o.url).toBe('http://127.0.0.1:9/mcp');
    expect(o.headers).toEqual({ A: '3', B: 'two: parts' });
    expect(o.allowTools).toEqual(['x', 'y', 'z']);
  });

  it('booleans: --no-watchdog turns the watchdog off, --dangerously-allow-non-loopback on; neither takes a value', () => {
    expect(parseArgs(['--config', CFG]).watchdog).toBe(true);
    expect(parseArgs(['--config', CFG, '--no-watchdog']).watchdog).toBe(false);
    expect(
      parseArgs(['proxy', '--port', '0', '--config', CFG, '--dangerously-allow-non-loopback']).allowNonLoopback,
    ).toBe(true);
    expect(usageError(['--config', CFG, '--no-watchdog=0'])).toBe('option --no-watchdog takes no value, got "0"');
  });

  it('a short group is read flag by flag (-hc x is --help)', () => {
    expect(parseArgs(['-hc', 'x']).mode).toBe('help');
    expect(parseArgs(['--config', CFG, '-v']).mode).toBe('version');
    expect(usageError(['-xc', CFG])).toBe('unknown option -x');
  });

  it('keeps our messages where Node strict mode would say "ambiguous" or "Unknown option"', () => {
    expect(usageError(['--config', '--idle-timeout', '5'])).toBe('option --config needs a value');
    expect(usageError(['--config', CFG, '-p'])).toBe('option -p needs a value');
    expect(usageError(['--config', CFG, '--bogus=1'])).toBe('unknown option --bogus');
    expect(usageError(['--config', CFG, '--', 'x'])).toBe('unknown option --');
    expect(usageError(['convert', 'http://127.0.0.1:9/mcp', '-n', '--ping-interval'])).toBe('option -n needs a value');
    // A value that merely starts with a dash is a value, judged by its kind.
    expect(usageError(['--config', CFG, '--idle-timeout', '-5'])).toBe(
      'option --idle-timeout takes a non-negative whole number, got "-5"',
    );
    expect(usageError(['--config', CFG, '-n', 'x'])).toBe('option -n does not apply to stdio aggregation mode');
  });

  it('mode words and positionals', () => {
    expect(parseArgs(['proxy', '-p', '0', '-c', CFG])).toMatchObject({ mode: 'proxy', port: 0 });
    expect(usageError(['serve'])).toMatch(/^unknown mode "serve"/);
    expect(usageError(['convert', 'http://a/mcp', 'http://b/mcp'])).toBe('convert takes one URL, got 2');
    expect(usageError(['--config', CFG, 'extra'])).toBe('unexpected argument "extra"');
  });
});

describe('proxy mode: --watch and the default config', () => {
  it('takes --watch in proxy mode only, with a config file', () => {
    expect(parseArgs(['proxy', '--port', '0', '--config', 'mcp.json', '--watch']).watch).toBe(true);
    expect(parseArgs(['proxy', '--port', '0', '--config-file', 'mcp.json']).watch).toBeUndefined();
    expect(usageError(['proxy', '--port', '0', '--config', CFG, '--watch'])).toBe(
      '--watch needs a config file, not inline JSON',
    );
    expect(usageError(['--config', CFG, '--watch'])).toBe('option --watch does not apply to stdio aggregation mode');
  });

  it('runs proxy mode without a config (the default one); stdio aggregation still needs one', () => {
    const opts = parseArgs(['proxy', '--port', '0', '--watch']);
    expect(opts.config).toBeUndefined();
    expect(opts.configFile).toBeUndefined();
    expect(usageError([])).toMatch(/stdio aggregation mode needs --config/);
  });
});
