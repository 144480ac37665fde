// Which server owns a resource URI, when only a template of it is listed.
/** Whether a URI could come from an RFC 6570 template (level 1 expressions as wildcards). */
export function templateMatches(template: string, uri: string): boolean {
  const pattern = template
    .split(/\{[^}]*\}/)
    .map((part) => part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'))
    .join('.+');
  return new RegExp(`^${pattern}$`).test(uri);
}
