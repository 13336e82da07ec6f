/**
 * The shape of `src/` (issue 28, "one of each": no import circle; slices own their state changes):
 * - no import circle at runtime (static and dynamic imports: a circle cannot hide behind a lazy `import()`), and none
 *   through type-only imports either, but for the zustand slice pattern's `import type { AppState } from './store.ts'`;
 * - every import keeps the layering of tests/layout/layers.ts (STYLE.md), and only `ui` imports React;
 * - views call the store's actions: no `useStore.setState(…)` or `getState().x = …` outside src/ui/store, and no
 *   slice keeps state in module-level variables (each store owns its own).
 * The checker itself is first tried on small projects written to a temporary folder, so a checker that finds
 * nothing cannot pass for a graph without circles.
 */
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { buildImportGraph, findCycles, type ImportEdge, type ImportGraph } from './import-graph.ts';
import { isLayerException, LAYER_EXCEPTIONS, layerOf, MAY_IMPORT, REACT_LAYERS } from './layers.ts';

const ROOT = join(import.meta.dirname, '..', '..');
const runtime = (e: ImportEdge): boolean => e.kind === 'value' || e.kind === 'dynamic';
const anyImport = (e: ImportEdge): boolean => e.kind !== 'worker';

/**
 * The zustand slice pattern: each slice is typed against the whole store (`StateCreator<AppState, …>`), and the store
 * is the union of the slices, so `x-slice.ts → store.ts` (types only) closes a circle that is erased at compile time.
 */
const slicePatternEdge = (e: ImportEdge): boolean => e.kind === 'type' && /^src\/ui\/store\/[a-z-]+-slice\.ts$/.test(e.from) && e.to === 'src/ui/store/store.ts';

describe('the import-graph checker, on small projects', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  /** Writes `files` (path → text) under a fresh folder with the project's tsconfig options, and reads its graph. */
  function project(files: Record<string, string>): ImportGraph {
    const dir = mkdtempSync(join(tmpdir(), 'import-graph-'));
    dirs.push(dir);
    writeFileSync(join(dir, 'tsconfig.json'), readFileSync(join(ROOT, 'tsconfig.json')));
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    return buildImportGraph(dir);
  }

  it('reads each kind of import as the emitted JavaScript keeps it', () => {
    const graph = project({
      'src/a.ts': [
        "import { b } from './b.ts';",
        "import type { C } from './c.ts';",
        "import { type D } from './d.ts';", // verbatimModuleSyntax emits `import {} from './d.ts'`: it runs d
        "export { e } from './e.ts';",
        "export type { F } from './f.ts';",
        "const g = () => import('./g.ts');",
        "type H = import('./h.ts').H;",
        "const w = new Worker(new URL('./w.ts', import.meta.url), { type: 'module' });",
        "import 'react';",
        'export const a: C | D | H | number = b; void g; void w;',
      ].join('\n'),
      ...Object.fromEntries(['b', 'c', 'd', 'e', 'f', 'g', 'h', 'w'].map((n) => [`src/${n}.ts`, `export const ${n} = 1; export type ${n.toUpperCase()} = number;`])),
    });
    const kinds = Object.fromEntries(graph.edges.map((e) => [e.to, e.kind]));
    expect(kinds).toEqual({
      'src/b.ts': 'value',
      'src/c.ts': 'type',
      'src/d.ts': 'value',
      'src/e.ts': 'value',
      'src/f.ts': 'type',
      'src/g.ts': 'dynamic',
      'src/h.ts': 'type',
      'src/w.ts': 'worker',
    });
    expect(graph.packageImports.get('src/a.ts')).toEqual(['react']);
  });

  it('finds a three-file circle, a lazy one, a type-only one and a self-import, and nothing in a chain', () => {
    const graph = project({
      'src/x/one.ts': "import { two } from './two.ts'; export const one = two;",
      'src/x/two.ts': "import { three } from '../y/three.ts'; export const two = three;",
      'src/y/three.ts': "import type { One } from './types.ts'; export const three = () => import('../x/one.ts'); export type T = One;",
      'src/y/types.ts': "export type One = number;",
      'src/p.ts': "import type { Q } from './q.ts'; export type P = Q | 1;",
      'src/q.ts': "import type { P } from './p.ts'; export type Q = P | 2;",
      'src/self.ts': "import * as me from './self.ts'; export const self = me;",
      'src/chain1.ts': "import { c2 } from './chain2.ts'; export const c1 = c2;",
      'src/chain2.ts': 'export const c2 = 2;',
    });
    expect(findCycles(graph, runtime).map((c) => c.circle)).toEqual([
      ['src/self.ts', 'src/self.ts'],
      ['src/x/one.ts', 'src/x/two.ts', 'src/y/three.ts', 'src/x/one.ts'],
    ]);
    expect(findCycles(graph, anyImport).map((c) => c.members)).toEqual([['src/p.ts', 'src/q.ts'], ['src/self.ts'], ['src/x/one.ts', 'src/x/two.ts', 'src/y/three.ts']]);
    // Without dynamic imports the lazy circle is gone: the checker must count them to see it.
    expect(findCycles(graph, (e) => e.kind === 'value').map((c) => c.circle)).toEqual([['src/self.ts', 'src/self.ts']]);
  });
});

/** Every circle as one line, for the failure message: `a.ts → b.ts → a.ts (tangle: n files)`. */
const describeCircles = (graph: ImportGraph, include: (e: ImportEdge) => boolean): string[] =>
  findCycles(graph, include).map(({ circle, members }) => `${circle.join(' → ')}${members.length > circle.length - 1 ? ` (tangle of ${members.length} files: ${members.join(', ')})` : ''}`);

describe('src/', () => {
  const graph = buildImportGraph(ROOT);

  it('reads the whole source tree', () => {
    // A premise, not a figure: a reader that lost the edges would make every later check vacuous.
    expect(graph.files).toContain('src/ui/store/store.ts');
    expect(graph.edges.some((e) => e.from === 'src/ui/store/store.ts' && e.to === 'src/ui/store/watch-slice.ts' && e.kind === 'value')).toBe(true);
  });

  it('has no import circle at runtime (static or dynamic imports)', () => {
    expect(describeCircles(graph, runtime)).toEqual([]);
  });

  it('has no import circle through type-only imports, but for the slices typed against the whole store', () => {
    expect(describeCircles(graph, (e) => anyImport(e) && !slicePatternEdge(e))).toEqual([]);
  });

  it('keeps the layering: each import goes to a layer its own may import', () => {
    const unknown = [...new Set(graph.files.map(layerOf))].filter((layer) => !(layer in MAY_IMPORT));
    expect(unknown, 'a folder of src/ that tests/layout/layers.ts does not place').toEqual([]);
    const refused = graph.edges
      .filter((e) => layerOf(e.from) !== layerOf(e.to) && !MAY_IMPORT[layerOf(e.from)]?.includes(layerOf(e.to)) && !isLayerException(e.from, e.to))
      .map((e) => `${e.from} → ${e.to} (${e.kind}: ${layerOf(e.from)} may not import ${layerOf(e.to)})`);
    expect(refused).toEqual([]);
    // Each exception is still needed (one that is not would hide the next such import), and an imported target stays
    // a leaf at runtime (so the exception cannot carry a whole layer in with it; a spawned worker entry is a program).
    for (const x of LAYER_EXCEPTIONS) {
      const used = graph.edges.filter((e) => isLayerException(e.from, e.to) && e.to === x.to);
      expect(used.length, `${x.from} → ${x.to} is still used`).toBeGreaterThan(0);
      if (used.some((e) => e.kind !== 'worker')) expect(graph.edges.filter((e) => e.from === x.to && runtime(e)).map((e) => e.to), `${x.to} imports nothing at runtime`).toEqual([]);
    }
  });

  it('imports React only from ui (and main)', () => {
    const reactUsers = [...graph.packageImports]
      .filter(([, packages]) => packages.some((p) => /^react(-dom)?(\/|$)/.test(p)))
      .map(([file]) => file)
      .filter((file) => !REACT_LAYERS.includes(layerOf(file)));
    expect(reactUsers).toEqual([]);
  });

  it('writes the store only from its slices: views call actions', () => {
    const writers = graph.files
      .filter((f) => !f.startsWith('src/ui/store/'))
      .map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }))
      .filter(({ text }) => text.includes('useStore')) // parse only the files that name the store
      .flatMap(({ file, text }) => storeWrites(file, text).map((w) => `${file}: ${w}`));
    expect(writers).toEqual([]);
  });

  it('keeps no state in module-level variables of a store file (each store owns its own)', () => {
    const moduleState = graph.files
      .filter((f) => f.startsWith('src/ui/store/'))
      .flatMap((file) => moduleLevelState(file, readFileSync(join(ROOT, file), 'utf8')).map((w) => `${file}: ${w}`));
    expect(moduleState).toEqual([]);
  });
});

describe('the store-write and module-state finders', () => {
  it('see setState, an assignment through getState(), and module-level let and new', () => {
    expect(storeWrites('v.ts', 'useStore.setState({ a: 1 }); useStore.getState().a = 2; useStore.getState().act(); const x = useStore.getState().a === 1;')).toEqual([
      'useStore.setState({ a: 1 })',
      'useStore.getState().a = 2',
    ]);
    expect(moduleLevelState('s.ts', 'let n = 0; const q = new Queue(); const K = 3; export function f() { let m = 1; return m; }')).toEqual(['let n = 0;', 'const q = new Queue();']);
  });
});

/** Calls of `<store>.setState(…)` and assignments to `<store>.getState().x` in one file. */
function storeWrites(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: string[] = [];
  const isGetState = (node: ts.Node): boolean =>
    ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'getState';
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && node.expression.name.text === 'setState' && ts.isIdentifier(node.expression.expression) && node.expression.expression.text === 'useStore') {
      found.push(node.getText(source));
    } else if (ts.isBinaryExpression(node) && node.operatorToken.kind === ts.SyntaxKind.EqualsToken && ts.isPropertyAccessExpression(node.left) && isGetState(node.left.expression)) {
      found.push(node.getText(source));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Top-level `let`/`var` declarations and `const x = new …` objects: state that all stores of a page would share. */
function moduleLevelState(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  return source.statements
    .filter(ts.isVariableStatement)
    .filter((statement) => {
      const flags = statement.declarationList.flags;
      const mutable = (flags & ts.NodeFlags.Let) !== 0 || (flags & (ts.NodeFlags.Const | ts.NodeFlags.Using | ts.NodeFlags.AwaitUsing)) === 0;
      return mutable || statement.declarationList.declarations.some((d) => d.initializer !== undefined && ts.isNewExpression(d.initializer));
    })
    .map((statement) => statement.getText(source));
}
