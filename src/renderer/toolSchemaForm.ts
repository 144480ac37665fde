/**
 * A form generated from a tool's `inputSchema`: a text field per string, a number field per
 * number or integer, a checkbox per boolean, a select per enum, a text area (one value per
 * line) per array of simple values; anything else (objects, unions, arrays of objects) is a
 * raw JSON text area. `read()` gives the arguments, or the problems found.
 */
import { el } from './dom.js';
import { field, linesOf } from './controls.js';

type Schema = Record<string, unknown>;
type Reader = () => { value?: unknown; error?: string; skip?: boolean };

const isObj = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const typeOf = (s: Schema): string | undefined =>
  typeof s.type === 'string' ? s.type : Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : undefined;
const SIMPLE = ['string', 'number', 'integer', 'boolean'];

function convert(text: string, type: string | undefined, label: string): { value?: unknown; error?: string } {
  if (type === 'number' || type === 'integer') {
    const n = Number(text);
    if (text.trim() === '' || !Number.isFinite(n)) return { error: `${label} must be a number` };
    if (type === 'integer' && !Number.isInteger(n)) return { error: `${label} must be a whole number` };
    return { value: n };
  }
  if (type === 'boolean')
    return text === 'true' || text === 'false'
      ? { value: text === 'true' }
      : { error: `${label} must be true or false` };
  return { value: text };
}

function control(name: string, s: Schema, required: boolean): { node: HTMLElement; read: Reader } {
  const label = required ? `${name} (required)` : name;
  const hint = typeof s.description === 'string' ? s.description : undefined;
  const type = typeOf(s);
  const optionalEmpty = (empty: boolean) => !required && empty;
  if (Array.isArray(s.enum) && s.enum.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) {
    const select = el('select');
    if (!required) select.append(el('option', undefined, '(not set)', { value: '' }));
    s.enum.forEach((v, i) => select.append(el('option', undefined, String(v), { value: String(i) })));
    const values = s.enum as unknown[];
    return {
      node: field(label, select, hint),
      read: () => (select.value === '' ? { skip: true } : { value: values[Number(select.value)] }),
    };
  }
  if (type === 'boolean') {
    const box = el('input', undefined, undefined, { type: 'checkbox' });
    if (s.default === true) box.checked = true;
    return { node: field(label, box, hint), read: () => ({ value: box.checked }) };
  }
  if (type === 'string' || type === 'number' || type === 'integer') {
    const input = el('input', undefined, undefined, {
      type: type === 'string' ? 'text' : 'number',
      spellcheck: 'false',
    });
    if (type !== 'string') input.step = 'any';
    if (s.default !== undefined && typeof s.default !== 'object') input.value = String(s.default);
    return {
      node: field(label, input, hint),
      read: () => (optionalEmpty(input.value === '') ? { skip: true } : convert(input.value, type, name)),
    };
  }
  const items = isObj(s.items) ? s.items : undefined;
  const itemType = items ? typeOf(items) : undefined;
  if (type === 'array' && itemType && SIMPLE.includes(itemType)) {
    const area = el('textarea', undefined, undefined, { rows: '3', spellcheck: 'false' });
    return {
      node: field(label, area, `${hint ? `${hint} ` : ''}One value per line.`),
      read: () => {
        const lines = linesOf(area.value);
        if (optionalEmpty(lines.length === 0)) return { skip: true };
        const out: unknown[] = [];
        for (const l of lines) {
          const c = convert(l, itemType, name);
          if (c.error) return c;
          out.push(c.value);
        }
        return { value: out };
      },
    };
  }
  const area = el('textarea', 'json-input', undefined, { rows: '4', spellcheck: 'false' });
  if (s.default !== undefined) area.value = JSON.stringify(s.default, null, 2);
  return {
    node: field(`${label} (JSON)`, area, hint),
    read: () => {
      if (optionalEmpty(area.value.trim() === '')) return { skip: true };
      try {
        return { value: JSON.parse(area.value) };
      } catch {
        return { error: `${name} is not valid JSON` };
      }
    },
  };
}

export interface SchemaForm {
  readonly root: HTMLElement;
  read(): { args?: Record<string, unknown>; errors: string[] };
}

/** Builds the fields for `schema` (a JSON Schema of type object). */
export function createSchemaForm(schema: unknown): SchemaForm {
  const root = el('div', 'schema-form');
  const s = isObj(schema) ? schema : {};
  const props = isObj(s.properties) ? s.properties : undefined;
  const required = new Set(
    Array.isArray(s.required) ? s.required.filter((x): x is string => typeof x === 'string') : [],
  );
  if (!props) {
    // No described properties: the whole arguments object as JSON.
    const area = el('textarea', 'json-input', undefined, { rows: '4', spellcheck: 'false' });
    area.value = '{}';
    root.append(field('Arguments (JSON)', area));
    return {
      root,
      read() {
        try {
          const v: unknown = JSON.parse(area.value || '{}');
          return isObj(v) ? { args: v, errors: [] } : { errors: ['the arguments must be a JSON object'] };
        } catch {
          return { errors: ['the arguments are not valid JSON'] };
        }
      },
    };
  }
  const readers: [string, Reader][] = [];
  for (const [name, p] of Object.entries(props)) {
    const c = control(name, isObj(p) ? p : {}, required.has(name));
    root.append(c.node);
    readers.push([name, c.read]);
  }
  if (readers.length === 0) root.append(el('p', 'no-args', 'This tool takes no arguments.'));
  return {
    root,
    read() {
      const args: Record<string, unknown> = {};
      const errors: string[] = [];
      for (const [name, r] of readers) {
        const v = r();
        if (v.error) errors.push(v.error);
        else if (!v.skip) args[name] = v.value;
      }
      return errors.length ? { errors } : { args, errors };
    },
  };
}
