/** A command and its arguments as one line a user can read and paste into a POSIX shell. */
export function commandLine(command: string, args: readonly string[]): string {
  return [command, ...args].map(quote).join(' ');
}

function quote(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./${}-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** `{name}` in `template` replaced from `values`; an unknown name stays as it is (server.json rule). */
export function fillTemplate(template: string, values: (name: string) => string | undefined): string {
  return template.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (whole, name: string) => values(name) ?? whole);
}
