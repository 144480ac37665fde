/**
 * How a stdio server is launched: its environment (spawnCommand.ts's allowlist, then the
 * entry's `env`), the PATH it gets, the command resolved on that PATH, and the spawn plan.
 *
 * The PATH (POSIX):
 * - an entry whose `env` sets PATH gets exactly that, and the command is looked up there;
 * - when the login-shell folders were handed down (`QIMING_LOGIN_PATH`), the process's own
 *   PATH followed by those of them it lacks;
 * - otherwise the process's own PATH when the command, and the interpreter a `#!/usr/bin/env`
 *   script names, are found on it; else the login shell is read (once per process, see
 *   loginPath.ts) and its folders are added behind the process's own.
 * A command found nowhere is a CommandNotFoundError naming the PATH searched. Windows: no
 * login shell, the command resolved with PATH and PATHEXT (spawnCommand.ts).
 */
import { homedir } from 'node:os';
import { LOGIN_PATH_ENV } from '../common/envNames.js';
import type { Logger } from '../common/logger.js';
import { buildChildEnv, envLookup, resolveSpawnCommand, type SpawnPlan } from './spawnCommand.js';
import {
  commandNotFound,
  envInterpreter,
  findCommand,
  mergePath,
  shortenHome,
  type ResolveSeams,
} from './commandResolver.js';
import { loginPath, type LoginPath } from './loginPath.js';
import type { PathSource, ServerLaunchInfo } from '../../shared/status.js';

/** What the status shows of a launch (`pathFrom` `own`: the proxy's PATH, unchanged). */
export type LaunchInfo = ServerLaunchInfo;

export interface ServerLaunch {
  plan: SpawnPlan;
  env: Record<string, string>;
  info: LaunchInfo;
}

export interface LaunchRequest extends ResolveSeams {
  name: string;
  command: string;
  args?: readonly string[];
  /** The entry's own variables. */
  entryEnv?: Record<string, string>;
  cwd?: string;
  /** Default `process.env`. */
  parentEnv?: NodeJS.ProcessEnv;
  home?: string;
  logger?: Logger;
  /** Seam: where the login-shell folders come from (default: the per-process {@link loginPath}). */
  login?: () => Promise<LoginPath>;
}

function entrySetsPath(entryEnv: Record<string, string> | undefined, platform: NodeJS.Platform): boolean {
  return Object.keys(entryEnv ?? {}).some((k) => (platform === 'win32' ? k.toUpperCase() === 'PATH' : k === 'PATH'));
}

function pathKey(env: Record<string, string>, platform: NodeJS.Platform): string {
  if (platform !== 'win32') return 'PATH';
  return Object.keys(env).find((k) => k.toUpperCase() === 'PATH') ?? 'PATH';
}

/** Decides the environment, PATH and command of one server start; see the file comment. */
export async function planServerLaunch(r: LaunchRequest): Promise<ServerLaunch> {
  const platform = r.platform ?? process.platform;
  const parentEnv = r.parentEnv ?? process.env;
  const home =
    r.home ??
    (platform === 'win32' ? (envLookup(parentEnv, 'USERPROFILE', platform) ?? homedir()) : parentEnv.HOME || homedir());
  const seams: ResolveSeams = { platform, isExecutable: r.isExecutable, readHead: r.readHead };
  const env = buildChildEnv(r.entryEnv, { platform, parentEnv });
  const key = pathKey(env, platform);
  const own = env[key];
  const login = r.login ?? (() => loginPath(r.logger));
  let from: PathSource = 'own';
  const direct = platform !== 'win32' && r.command.includes('/');
  /** The command, or its interpreter, missing on `p`; undefined when both are there. */
  const missing = (p: string | undefined): { foundAt?: string; interpreter?: string } | undefined => {
    const at = findCommand(r.command, p, r.cwd, seams, envLookup(env, 'PATHEXT', platform));
    // A path (`./bin/x`, `/opt/x`) is spawn's to judge: it names a missing cwd or EACCES best.
    if (!at) return direct ? undefined : {};
    if (platform === 'win32') return undefined;
    const interpreter = envInterpreter(at, seams);
    return interpreter && !findCommand(interpreter, p, r.cwd, seams) ? { foundAt: at, interpreter } : undefined;
  };
  if (entrySetsPath(r.entryEnv, platform)) {
    from = 'entry';
  } else if (platform !== 'win32' && (parentEnv[LOGIN_PATH_ENV] !== undefined || missing(own))) {
    const lp = await login();
    const merged = mergePath(own, lp.folders, platform);
    // Handed folders are named even when the own PATH has them all (the app's PATH already does).
    if (merged !== (own ?? '') || lp.source === 'handed') {
      if (merged) env[key] = merged;
      from = lp.source;
    }
  }
  const gap = missing(env[key]);
  if (gap) throw commandNotFound({ name: r.name, command: r.command, searched: env[key], home, platform, ...gap });
  const plan =
    platform === 'win32'
      ? resolveSpawnCommand(r.command, r.args ?? [], { platform, env, cwd: r.cwd, fileExists: r.isExecutable })
      : {
          command: direct ? r.command : findCommand(r.command, env[key], r.cwd, seams)!,
          args: [...(r.args ?? [])],
          windowsVerbatimArguments: false,
          windowsHide: true as const,
        };
  return {
    plan,
    env,
    info: { command: shortenHome(plan.command, home), path: shortenHome(env[key] ?? '', home), pathFrom: from },
  };
}
