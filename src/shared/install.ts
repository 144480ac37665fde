/**
 * The shapes of the bridge's `/install` routes (src/proxy/install/installRoutes.ts) that the
 * panel's Browse view and consent dialog read (src/renderer/installApi.ts).
 */
import type { SandboxPolicy, SandboxSetting } from './sandbox.js';

/** One registry server as a search lists it. */
export interface RegistryResult {
  name: string;
  title?: string;
  description: string;
  version: string;
  publisher: string;
  transports: string[];
  /** The server id it is installed as. */
  installed?: string;
  /** A newer version than the installed one. */
  update?: string;
}

/** A value the install asks for (a variable, a header, an argument, a bundle's `user_config`). */
export interface InstallInput {
  /** The key its answer comes under in the confirm's `values`. */
  key: string;
  label: string;
  description?: string;
  required: boolean;
  secret: boolean;
  default?: string;
  choices?: string[];
}

/** What the consent dialog shows. */
export interface InstallPlanView {
  planId: string;
  serverId: string;
  name: string;
  title?: string;
  version: string;
  kind: 'stdio' | 'remote';
  /**
   * The command line as it runs (POSIX shell quoting, characters that do not show as themselves
   * escaped: shellWords.ts), or the URL; for a download, the URL it fetches. Only what the user
   * typed into a secret field is masked (`********`).
   */
  shown: string;
  source: { kind: 'registry'; registry: string; name: string; version: string } | { kind: 'bundle'; file: string };
  /** `sha256 verified`, `no checksum: a file you opened`, ... */
  checksum: string;
  sha256?: string;
  /**
   * A registry's mcpb package, before anything is fetched: its confirm downloads `url`, checks
   * its `sha256`, and answers the bundle's own plan (what it runs) instead of installing.
   */
  download?: { url: string; sha256: string };
  /** Each value as the server gets it; `secret`: it holds what the user typed into a secret field (masked, kept in the store). */
  env: { name: string; value: string; secret: boolean }[];
  headers: { name: string; value: string; secret: boolean }[];
  inputs: InstallInput[];
  missing: string[];
  runtime?: { command: string; found: boolean; path?: string };
  /** Bundles: the folder it is unpacked into, author, declared tools and prompts. */
  folder?: string;
  author?: string;
  tools?: string[];
  prompts?: string[];
  /**
   * stdio: the sandbox proposed (proposedSandbox.ts): the paths its arguments name, writable,
   * and the hosts of the URLs it is given. Written only as the confirm's `sandbox` says.
   */
  sandbox?: SandboxPolicy;
  /** A re-install: what differs from the installed entry. */
  changes?: string[];
  /**
   * The labels of the secret fields whose value is passed on the command line: while the server
   * runs, other users of this computer can read it in the process list.
   */
  secretsOnCommandLine: string[];
  /** Where secret values are kept. */
  secretsKept: 'config' | 'store';
  expiresAt: string;
}

/** The largest `.mcpb` the installer takes (the file, before unpacking): 64 MiB. */
export const MAX_BUNDLE_BYTES = 64 * 1024 * 1024;

/** What a plan is made from: a registry server, a bundle's bytes, or a kept plan with new values. */
export type InstallPlanRequest =
  | { registry: { name: string; version?: string }; values?: Record<string, string> }
  | { bundle: { fileName: string; data: Uint8Array } }
  | { from: string; values: Record<string, string> };

type InstallFailure = { ok: false; error: string };
export type RegistryPage = { ok: true; servers: RegistryResult[]; nextCursor?: string; registry: string };
export type InstallPlanResult = { ok: true; plan: InstallPlanView } | InstallFailure;
/** A confirm installed the server, or (a download plan) fetched the bundle and answers its plan. */
export type InstallConfirmResult =
  { ok: true; serverId: string } | { ok: true; plan: InstallPlanView } | InstallFailure;

/** A `.mcpb` the app was asked to open (the OS's open-file, a path on its command line): its plan, or why none. */
export type OpenedBundle = { fileName: string; plan: InstallPlanView } | { fileName: string; error: string };

/** The install API in the app, over IPC: the same operations as the bridge's `/install` routes. */
export interface InstallIpcApi {
  installSearch(q: string, cursor?: string): Promise<RegistryPage | InstallFailure>;
  installPlan(req: InstallPlanRequest): Promise<InstallPlanResult>;
  /** `sandbox`: the stdio entry's own `"sandbox"` as the consent leaves it (absent or `null`: none written). */
  installConfirm(planId: string, sandbox?: SandboxSetting | null): Promise<InstallConfirmResult>;
  installUninstall(id: string): Promise<{ ok: true } | InstallFailure>;
  /** The ids of the servers installed from a registry or a bundle. */
  installedServers(): Promise<{ ok: true; ids: string[] } | InstallFailure>;
  /** The bundles opened since the last call (the queue is emptied). */
  takeOpenedBundles(): Promise<OpenedBundle[]>;
}
