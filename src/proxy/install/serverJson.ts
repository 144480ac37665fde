/**
 * `server.json` (the MCP Registry's server description, schema 2025-12-11): its types, as far
 * as installing reads them, and its check with ajv against the published schema, vendored byte
 * for byte (vendor/, MIT; JSON Schema draft-07, hence ajv's default class). Every document is
 * checked against it whatever its `$schema` says (docs/decisions/0043-registry-schema.md).
 * A document that fails the schema is refused with the first few reasons, never half-used.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import schema from './vendor/server.schema.json' with { type: 'json' };
import { InstallError } from './installError.js';

export interface SjInput {
  description?: string;
  isRequired?: boolean;
  format?: 'string' | 'number' | 'boolean' | 'filepath';
  value?: string;
  isSecret?: boolean;
  default?: string;
  placeholder?: string;
  choices?: string[];
  variables?: Record<string, SjInput>;
}
export interface SjKeyValue extends SjInput {
  name: string;
}
export type SjArgument =
  | (SjInput & { type: 'positional'; valueHint?: string; isRepeated?: boolean })
  | (SjInput & { type: 'named'; name: string; isRepeated?: boolean });
export interface SjTransport {
  type: 'stdio' | 'streamable-http' | 'sse';
  url?: string;
  headers?: SjKeyValue[];
  variables?: Record<string, SjInput>;
}
export interface SjPackage {
  registryType: string;
  registryBaseUrl?: string;
  identifier: string;
  version?: string;
  fileSha256?: string;
  runtimeHint?: string;
  transport: SjTransport;
  runtimeArguments?: SjArgument[];
  packageArguments?: SjArgument[];
  environmentVariables?: SjKeyValue[];
}
export interface ServerJson {
  $schema?: string;
  name: string;
  title?: string;
  description: string;
  version: string;
  websiteUrl?: string;
  repository?: { url: string; source: string };
  packages?: SjPackage[];
  remotes?: SjTransport[];
}

// ajv-formats is CommonJS with a default export; under NodeNext its namespace is what arrives.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  a: Ajv,
) => void;

let validate: ValidateFunction | undefined;

function validator(): ValidateFunction {
  if (!validate) {
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    validate = ajv.compile(schema);
  }
  return validate;
}

/** `doc` as a ServerJson. @throws InstallError naming what is wrong (`where` says which document). */
export function checkServerJson(doc: unknown, where: string): ServerJson {
  const v = validator();
  if (v(doc)) return doc as ServerJson;
  const reasons = (v.errors ?? [])
    .filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'allOf')
    .slice(0, 3)
    .map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`);
  throw new InstallError(`${where} is not a valid server.json: ${reasons.join('; ')}`, 502);
}
