/** The few SQL spellings search needs that differ between SQLite and PostgreSQL (JSON values held as text). */
import type { Dialect } from "../../db/connection";

/** Rows of the JSON array parameter `$name`, as a one-column subquery of text values. */
export function jsonList(dialect: Dialect, name: string): string {
  return dialect === "sqlite" ? `(select value from json_each($${name}))` : `(select jsonb_array_elements_text($${name}::text::jsonb))`;
}

/** The JSON member `key` of a JSON-text column compared with the JSON text `$name` (type and value both). */
export function jsonMemberEquals(dialect: Dialect, column: string, key: string, name: string): string {
  return dialect === "sqlite" ? `(${column} -> '$.${key}') = json($${name})` : `(${column}::jsonb -> '${key}') = $${name}::text::jsonb`;
}

/** Element `index` of a JSON-text array column, as text. */
export function jsonElementText(dialect: Dialect, column: string, index: number): string {
  return dialect === "sqlite" ? `(${column} ->> '$[${index}]')` : `(${column}::jsonb ->> ${index})`;
}

/** Whether some integer of a JSON-text array column lies in [$from, $to]. */
export function jsonIntegerBetween(dialect: Dialect, column: string, from: string, to: string): string {
  return dialect === "sqlite"
    ? `exists (select 1 from json_each(${column}) where value between $${from} and $${to})`
    : `exists (select 1 from jsonb_array_elements_text(${column}::text::jsonb) as page where page::integer between $${from} and $${to})`;
}

/**
 * `column` is one of the strings of the parameter `$name` (give it `textListParam`'s value).
 * PostgreSQL gets an array parameter rather than JSON: for `= any(array)` the planner counts the
 * elements of the bound array, so one searched variant among a hundred is read through the
 * variant index instead of a scan of every chunk (a set-returning function is always guessed
 * at 100 rows; docs/search.md).
 */
export function inTextList(dialect: Dialect, column: string, name: string): string {
  return dialect === "sqlite" ? `${column} in (select value from json_each($${name}))` : `${column} = any($${name}::text[])`;
}

/** The value of an `inTextList` parameter: a JSON array on SQLite, an array literal on PostgreSQL. */
export function textListParam(dialect: Dialect, values: string[]): string {
  if (dialect === "sqlite") return JSON.stringify(values);
  return `{${values.map((value) => `"${value.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(",")}}`;
}
