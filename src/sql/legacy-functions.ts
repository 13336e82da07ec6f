/**
 * sql.js's legacy extension functions (SQLite's contrib `extension-functions.c`: replicate, padl, padr, padc, …),
 * which sql.js 1.x registers on every database it opens unless initialised with `useOldExtensionFunctions: false`.
 * They are unsafe on untrusted SQL: `replicate('ab', 2147483648)` (and padl/padr/padc with a huge width) computes
 * its output size in 32 bits, allocates too little and writes past the buffer — a WASM trap at best, a silently
 * corrupted heap at worst (wasm-trap.ts).
 *
 * Two walls, decided per function (docs/sql-safety.md has the table):
 * - the worker hosts, where untrusted SQL runs, initialise sql.js with `SQL_JS_OPTIONS`, so none is registered:
 *   the math names SQLite also has natively (acos … tanh, log, power, sqrt, ceil, floor, pi, sign) are SQLite's
 *   own, and the rest do not exist;
 * - every database a `SqlEngine` opens on a module that did register them (the in-thread executor, tests: sql.js
 *   caches its first module, options and all) gets the functions SQLite lacks (`UNAVAILABLE_LEGACY_FUNCTIONS`: the
 *   string functions, square/cot/coth/atn2/difference, the aggregates) replaced by ones that raise "function X() is
 *   disabled". The legacy math functions stay there: they only compute on doubles. (Deleting a registration does
 *   not bring SQLite's built-in back: the deleted entry still shadows it, so replacing is the only option.)
 * The guard refuses the unavailable names in call position with a clear message, before SQLite sees them.
 */
import type { Database, SqlJsConfig, SqlJsStatic } from 'sql.js';

/** sql.js's init options, with the one its types lack (sql.js ≥ 1.14). */
export interface SqlJsInitOptions extends SqlJsConfig {
  useOldExtensionFunctions?: boolean;
}

/** Pass to `initSqlJs` (merged with `locateFile` where needed). */
export const SQL_JS_OPTIONS: SqlJsInitOptions = { useOldExtensionFunctions: false };

/** Every function `extension-functions.c` registers (scalar and aggregate), lower case. */
export const LEGACY_FUNCTION_NAMES: ReadonlySet<string> = new Set([
  // math
  'acos', 'asin', 'atan', 'atn2', 'atan2', 'acosh', 'asinh', 'atanh', 'difference', 'degrees', 'radians', 'cos', 'sin',
  'tan', 'cot', 'cosh', 'sinh', 'tanh', 'coth', 'exp', 'log', 'log10', 'power', 'sign', 'sqrt', 'square', 'ceil',
  'floor', 'pi',
  // strings
  'replicate', 'charindex', 'leftstr', 'rightstr', 'reverse', 'proper', 'padl', 'padr', 'padc', 'strfilter',
  // aggregates
  'stdev', 'variance', 'mode', 'median', 'lower_quartile', 'upper_quartile',
]);

/**
 * The legacy functions SQLite itself lacks, refused by the guard in call position: with the legacy set removed
 * they do not exist, and the guard says why rather than SQLite's bare "no such function".
 */
export const UNAVAILABLE_LEGACY_FUNCTIONS: ReadonlySet<string> = new Set([
  'replicate', 'charindex', 'leftstr', 'rightstr', 'reverse', 'proper', 'padl', 'padr', 'padc', 'strfilter',
  'difference', 'square', 'cot', 'coth', 'atn2', 'stdev', 'variance', 'mode', 'median', 'lower_quartile',
  'upper_quartile',
]);

interface Registration {
  name: string;
  nArg: number;
}

/** Legacy registrations found on a fresh database of each sql.js module (none for `SQL_JS_OPTIONS`). */
const registrationsByModule = new WeakMap<SqlJsStatic, Registration[]>();

function legacyRegistrations(sql: SqlJsStatic): Registration[] {
  let found = registrationsByModule.get(sql);
  if (found) return found;
  const probe = new sql.Database();
  try {
    // builtin = 0: registered by an application (here: sql.js's legacy set), not part of SQLite.
    const rows = probe.exec('SELECT name, narg FROM pragma_function_list WHERE builtin = 0')[0]?.values ?? [];
    found = rows
      .map((r) => ({ name: String(r[0]), nArg: Number(r[1]) }))
      .filter((r) => LEGACY_FUNCTION_NAMES.has(r.name.toLowerCase()));
  } finally {
    probe.close();
  }
  registrationsByModule.set(sql, found);
  return found;
}

/** The legacy functions SQLite lacks, as registered on `db`'s module, replaced by ones that refuse (see the header). */
export function disableLegacyFunctions(sql: SqlJsStatic, db: Database): void {
  const seen = new Set<string>();
  for (const { name, nArg } of legacyRegistrations(sql)) {
    if (!UNAVAILABLE_LEGACY_FUNCTIONS.has(name.toLowerCase())) continue;
    const refuse = (): never => {
      throw new Error(`function ${name}() is disabled: sql.js's legacy extension functions can crash SQLite`);
    };
    // sql.js registers a JS function with `fn.length` arguments.
    const byArity = [() => refuse(), (_a: unknown) => refuse(), (_a: unknown, _b: unknown) => refuse(), (_a: unknown, _b: unknown, _c: unknown) => refuse()];
    const fn = byArity[nArg];
    if (!fn) continue;
    // sql.js keeps one wasm function-table slot per name and frees the old slot when a name is registered again,
    // which would leave SQLite calling a freed slot for the first arity (charindex has two). SQLite matches names
    // case-insensitively, so a second arity goes in under another spelling and keeps its own slot.
    const spelling = seen.has(name.toLowerCase()) ? name.toUpperCase() : name.toLowerCase();
    seen.add(name.toLowerCase());
    db.create_function(spelling, fn);
  }
}

/**
 * `sql` with a Database class that disables the unsafe legacy functions on each database it opens; `sql` itself
 * when the module registers none. Memoised, so every engine on one module shares one wrapper.
 */
const wrappers = new WeakMap<SqlJsStatic, SqlJsStatic>();
export function withoutLegacyFunctions(sql: SqlJsStatic): SqlJsStatic {
  if (legacyRegistrations(sql).length === 0) return sql;
  let wrapped = wrappers.get(sql);
  if (!wrapped) {
    const Base = sql.Database;
    class SafeDatabase extends Base {
      constructor(data?: ArrayLike<number> | null) {
        super(data);
        disableLegacyFunctions(sql, this);
      }
    }
    wrapped = Object.assign(Object.create(sql) as SqlJsStatic, { Database: SafeDatabase });
    wrappers.set(sql, wrapped);
  }
  return wrapped;
}
