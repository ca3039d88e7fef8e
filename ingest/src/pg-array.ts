/**
 * PostgreSQL array literals built by hand for the batch statement's parameters. `pg` turns a JS
 * array into the same text, but element by element through its generic value conversion and two
 * regular expressions each; a batch of 1 000 records has 21 000 elements, so the ingest builds
 * the literal itself, in one pass per column, quoting only the text that needs it.
 */

/** `{1,2.5,NULL}`: numbers (finite, as the edge's schemas guarantee) or null. */
export function numberArray(values: readonly (number | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    out += v === null || v === undefined ? 'NULL' : String(v);
  }
  return `${out}}`;
}

/** `{t,f,NULL}`. */
export function booleanArray(values: readonly (boolean | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    out += v === null || v === undefined ? 'NULL' : v ? 't' : 'f';
  }
  return `${out}}`;
}

/** `{"a","b\"c",NULL}`: every element quoted (so `NULL`, spaces and braces stay text), `"` and `\` escaped. */
export function textArray(values: readonly (string | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    if (v === null || v === undefined) out += 'NULL';
    else if (v.indexOf('"') < 0 && v.indexOf('\\') < 0) out += `"${v}"`;
    else out += `"${v.replace(/[\\"]/g, '\\$&')}"`;
  }
  return `${out}}`;
}
