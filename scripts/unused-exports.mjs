#!/usr/bin/env node
/**
 * Lists the values (functions, classes, constants) exported from src/ that no other file in src/ uses: the dead
 * exports, and the ones alive only through tests. Run: `node scripts/unused-exports.mjs [--json]` (about a minute on
 * two cores: it binds the whole program with the TypeScript compiler API, without type-checking it).
 *
 * How to think about it: every import in the program (src, tests, e2e, bench, scripts) is resolved with the type
 * checker to the declaration it finally names (through re-exports and renames), and counted as a use by that file. A
 * namespace import (`import * as m`), a dynamic `import('…')` and a plain-JavaScript file (bin/, scripts/*.mjs) naming
 * a src/ module count as using all of that module's exports. Types and interfaces are not listed: they cost nothing at
 * run time. Each export then falls in one group:
 *   dead         — no file uses it, not even its own;
 *   tests-only   — alive only through tests: tests/ or e2e/ use it, no src/ code does (its own file neither);
 *   tools-only   — no src/ code uses it, bench/, scripts/ or bin/ do (tooling API: judge each, listed for the record);
 *   local        — only its own file uses it (the `export` keyword is the only thing to remove);
 *   tested-local — its own file and tests use it (a helper exported so that it can be tested on its own: fine).
 * `--functions` lists functions only (the issue's "functions alive only through tests").
 * Exit code 0 always: the list is for a person to judge (see /tmp/notes/s3/D-report.md for the judgement made).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const rel = (file) => relative(ROOT, file).split('\\').join('/');

/** Which part of the repository a file belongs to, for grouping its uses. */
function areaOf(file) {
  const r = rel(file);
  if (r.startsWith('src/')) return 'src';
  if (r.startsWith('tests/') || r.startsWith('e2e/')) return 'tests';
  return 'tools';
}

function readProgram() {
  const configPath = join(ROOT, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(configPath, ts.sys.readFile);
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  const parsed = ts.parseJsonConfigFileContent(config, ts.sys, ROOT);
  return ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
}

/** Plain-JavaScript files that may reach src/ by a path string (bin launchers, .mjs scripts). */
function javascriptFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...javascriptFiles(path));
    else if (/\.(mjs|cjs|js)$/.test(name)) out.push(path);
  }
  return out;
}

const program = readProgram();
const checker = program.getTypeChecker();
const sources = program.getSourceFiles().filter((f) => !f.isDeclarationFile && !rel(f.fileName).startsWith('node_modules/') && !rel(f.fileName).startsWith('..'));

/** The declaration symbol an alias finally names. */
const original = (symbol) => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);

/** symbol -> set of files using it (outside its own file). */
const users = new Map();
function use(symbol, file) {
  if (!symbol) return;
  const target = original(symbol);
  if (!users.has(target)) users.set(target, new Set());
  users.get(target).add(file);
}
/** Every export of a module file, used by `file` (namespace imports, dynamic imports, JavaScript path strings). */
function useAll(moduleFile, file) {
  const sf = program.getSourceFile(moduleFile);
  const moduleSymbol = sf && checker.getSymbolAtLocation(sf);
  if (!moduleSymbol) return;
  for (const s of checker.getExportsOfModule(moduleSymbol)) use(s, file);
}
function resolveModule(specifier, fromFile) {
  const r = ts.resolveModuleName(specifier, fromFile, program.getCompilerOptions(), ts.sys).resolvedModule;
  return r && !r.isExternalLibraryImport ? r.resolvedFileName : null;
}

for (const sf of sources) {
  const file = sf.fileName;
  const visit = (node) => {
    if (ts.isImportDeclaration(node) && node.importClause) {
      const clause = node.importClause;
      if (clause.name) use(checker.getSymbolAtLocation(clause.name), file);
      const bindings = clause.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const el of bindings.elements) use(checker.getSymbolAtLocation(el.name), file);
      if (bindings && ts.isNamespaceImport(bindings) && ts.isStringLiteral(node.moduleSpecifier)) {
        const target = resolveModule(node.moduleSpecifier.text, file);
        if (target) useAll(target, file);
      }
    }
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteralLike(node.arguments[0])) {
      const target = resolveModule(node.arguments[0].text, file);
      if (target) useAll(target, file);
    }
    // `typeof import('…').name` and `vi.mock` factories are rare here; ImportType nodes name a module's types only.
    ts.forEachChild(node, visit);
  };
  visit(sf);
}

for (const jsFile of [...javascriptFiles(join(ROOT, 'bin')), ...javascriptFiles(join(ROOT, 'scripts'))]) {
  const text = readFileSync(jsFile, 'utf8');
  for (const m of text.matchAll(/['"`]([^'"`]*src\/[^'"`]+\.tsx?)['"`]/g)) {
    const candidate = resolve(dirname(jsFile), m[1]);
    const target = program.getSourceFile(candidate) ? candidate : program.getSourceFile(join(ROOT, m[1].replace(/^.*?src\//, 'src/'))) ? join(ROOT, m[1].replace(/^.*?src\//, 'src/')) : null;
    if (target) useAll(target, jsFile);
  }
}

/** True when `symbol` is used in its own file besides its declaration (a local use). */
function usedLocally(sf, symbol) {
  const name = symbol.getName();
  const declarations = new Set(symbol.declarations ?? []);
  let found = false;
  const visit = (node) => {
    if (found) return;
    if (ts.isIdentifier(node) && node.text === name && !declarations.has(node.parent)) {
      const s = checker.getSymbolAtLocation(node);
      if (s && (s === symbol || original(s) === symbol) && !ts.isExportSpecifier(node.parent)) found = true;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

const VALUE = ts.SymbolFlags.Function | ts.SymbolFlags.Class | ts.SymbolFlags.Variable | ts.SymbolFlags.Enum;
const rows = [];
let exported = 0;
for (const sf of sources) {
  if (areaOf(sf.fileName) !== 'src') continue;
  const moduleSymbol = checker.getSymbolAtLocation(sf);
  if (!moduleSymbol) continue;
  for (const s of checker.getExportsOfModule(moduleSymbol)) {
    const target = original(s);
    if (!(target.flags & VALUE)) continue;
    // A re-export (`export { x } from './y.ts'`) is listed where x is declared, not here.
    if (!target.declarations?.some((d) => d.getSourceFile() === sf)) continue;
    exported++;
    const others = [...(users.get(target) ?? [])].filter((f) => f !== sf.fileName);
    const areas = new Set(others.map(areaOf));
    if (areas.has('src')) continue;
    const local = usedLocally(sf, target);
    const group = areas.has('tools') && !local ? 'tools-only' : areas.has('tests') ? (local ? 'tested-local' : 'tests-only') : local ? 'local' : areas.has('tools') ? 'tools-only' : 'dead';
    const kind = target.flags & ts.SymbolFlags.Function ? 'function' : target.flags & ts.SymbolFlags.Class ? 'class' : 'value';
    rows.push({ group, kind, file: rel(sf.fileName), name: s.getName(), usedBy: others.map(rel).sort() });
  }
}

const ORDER = ['dead', 'tests-only', 'tools-only', 'local', 'tested-local'];
if (process.argv.includes('--functions')) rows.splice(0, rows.length, ...rows.filter((r) => r.kind === 'function'));
rows.sort((a, b) => ORDER.indexOf(a.group) - ORDER.indexOf(b.group) || a.file.localeCompare(b.file) || a.name.localeCompare(b.name));
if (process.argv.includes('--json')) {
  console.log(JSON.stringify({ exported, rows }, null, 2));
} else {
  console.log(`${exported} value exports in src/; not used by any other src/ file: ${rows.length}${process.argv.includes("--functions") ? " (functions only)" : ""}`);
  for (const group of ORDER) {
    const inGroup = rows.filter((r) => r.group === group);
    console.log(`\n${group} (${inGroup.length})`);
    // The long groups (local, tested-local) are counted only: nothing there is dead code.
    if (group === 'local' || group === 'tested-local') continue;
    for (const r of inGroup) console.log(`  ${r.file}: ${r.name} (${r.kind})${r.usedBy.length ? `  <- ${r.usedBy.join(', ')}` : ''}`);
  }
}
