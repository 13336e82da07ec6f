/**
 * The import graph of `src/`, read with the TypeScript compiler API (madge cannot be installed here), and the two
 * questions asked of it: which files import each other in a circle, and which imports break the layering.
 *
 * How to think about it: every import is an edge from one file under `src/` to another, resolved the way `tsc`
 * resolves it (tsconfig's options, `.ts` extensions, Vite's `?worker`/`?url` suffixes dropped). Each edge has a kind:
 * - `value`: a static import or re-export that stays in the emitted JavaScript. With `verbatimModuleSyntax` that
 *   includes `import { type A } from './x.ts'` (it is emitted as `import {} from './x.ts'`, which still runs x);
 * - `dynamic`: `import('./x.ts')` — evaluated later, but still a runtime edge, so a circle cannot hide behind one;
 * - `type`: `import type …`, `export type … from`, `import('./x.ts').T` in a type — gone after compilation;
 * - `worker`: `new Worker(new URL('./x.ts', import.meta.url))` — a separate module graph, so never part of a circle,
 *   but still a dependency for the layering.
 * Bare package imports (`react`, `sql.js`) are kept apart in `packageImports`: the layering also asks who imports React.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export type EdgeKind = 'value' | 'dynamic' | 'type' | 'worker';

export interface ImportEdge {
  /** Importing file, relative to the project root with `/` separators (`src/ui/store/store.ts`). */
  readonly from: string;
  /** Imported file, same form. */
  readonly to: string;
  readonly kind: EdgeKind;
}

export interface ImportGraph {
  /** Every `.ts`/`.tsx` file under the source folder (declaration files excluded), sorted. */
  readonly files: readonly string[];
  readonly edges: readonly ImportEdge[];
  /** Bare (package) specifiers each file imports at runtime or as types, e.g. `src/ui/App.tsx` → `react`. */
  readonly packageImports: ReadonlyMap<string, readonly string[]>;
}

const SOURCE_EXTENSIONS = ['.ts', '.tsx'];

function listSourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...listSourceFiles(path));
    else if (SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !entry.name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

function compilerOptions(root: string): ts.CompilerOptions {
  const configPath = join(root, 'tsconfig.json');
  const read = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  if (read.error) throw new Error(`cannot read ${configPath}: ${ts.flattenDiagnosticMessageText(read.error.messageText, '\n')}`);
  return ts.parseJsonConfigFileContent(read.config, ts.sys, root).options;
}

interface RawImport {
  readonly specifier: string;
  readonly kind: EdgeKind;
}

/** `import type X` / `import type { … }` (TypeScript 6 spells it `phaseModifier`; `import defer` is the other phase). */
function isTypeOnlyClause(clause: ts.ImportClause | undefined): boolean {
  return clause?.phaseModifier === ts.SyntaxKind.TypeKeyword;
}

/** Every import-like reference in one file, in source order. */
export function readImports(fileName: string, text: string): RawImport[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const found: RawImport[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, kind: isTypeOnlyClause(node.importClause) ? 'type' : 'value' });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      found.push({ specifier: node.moduleSpecifier.text, kind: node.isTypeOnly ? 'type' : 'value' });
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      found.push({ specifier: node.moduleReference.expression.text, kind: node.isTypeOnly ? 'type' : 'value' });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      found.push({ specifier: node.argument.literal.text, kind: 'type' });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) found.push({ specifier: arg.text, kind: 'dynamic' });
    } else if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && /^(Shared)?Worker$/.test(node.expression.text)) {
      // new Worker(new URL('./x.worker.ts', import.meta.url), …)
      const [arg] = node.arguments ?? [];
      if (arg && ts.isNewExpression(arg) && ts.isIdentifier(arg.expression) && arg.expression.text === 'URL') {
        const [url] = arg.arguments ?? [];
        if (url && ts.isStringLiteralLike(url)) found.push({ specifier: url.text, kind: 'worker' });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const toPosix = (path: string): string => path.split(sep).join('/');

/** Builds the graph of every file under `root/sourceDir` (default `src`). */
export function buildImportGraph(root: string, sourceDir = 'src'): ImportGraph {
  const absRoot = resolve(root);
  const options = compilerOptions(absRoot);
  const host = ts.createCompilerHost(options);
  const absFiles = listSourceFiles(join(absRoot, sourceDir)).sort();
  const files = absFiles.map((f) => toPosix(relative(absRoot, f)));
  const inGraph = new Set(files);
  const edges: ImportEdge[] = [];
  const packageImports = new Map<string, string[]>();
  for (const abs of absFiles) {
    const from = toPosix(relative(absRoot, abs));
    for (const { specifier, kind } of readImports(abs, readFileSync(abs, 'utf8'))) {
      const bare = specifier.replace(/\?.*$/, '');
      if (!bare.startsWith('.') && !bare.startsWith('/')) {
        const list = packageImports.get(from) ?? [];
        list.push(bare);
        packageImports.set(from, list);
        continue;
      }
      const resolved = ts.resolveModuleName(bare, abs, options, host).resolvedModule;
      if (!resolved) {
        // `?url` assets (a .wasm, a .json) and `new URL` to non-TS files are not part of the source graph.
        continue;
      }
      const to = toPosix(relative(absRoot, resolved.resolvedFileName));
      if (inGraph.has(to)) edges.push({ from, to, kind });
    }
  }
  return { files, edges, packageImports };
}

/** A circle of imports, and every file of its strongly connected component (a bigger tangle than the one circle). */
export interface ImportCircle {
  /** One shortest circle through the component's first file (sorted): `[a.ts, b.ts, a.ts]`. */
  readonly circle: readonly string[];
  readonly members: readonly string[];
}

/**
 * Import circles among the edges `include` keeps: one per strongly connected component of two or more files (or a
 * file importing itself). Tarjan's algorithm, iterative so a deep graph cannot overflow the stack.
 */
export function findCycles(graph: ImportGraph, include: (edge: ImportEdge) => boolean): ImportCircle[] {
  const next = new Map<string, string[]>(graph.files.map((f) => [f, []]));
  for (const e of graph.edges) if (include(e) && !next.get(e.from)?.includes(e.to)) next.get(e.from)?.push(e.to);
  for (const list of next.values()) list.sort();

  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let counter = 0;
  for (const start of graph.files) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; child: number }> = [{ node: start, child: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const children = next.get(frame.node) ?? [];
      if (frame.child < children.length) {
        const child = children[frame.child++];
        if (!index.has(child)) {
          index.set(child, counter);
          low.set(child, counter++);
          stack.push(child);
          onStack.add(child);
          work.push({ node: child, child: 0 });
        } else if (onStack.has(child)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(child)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = component.length === 1 && (next.get(member) ?? []).includes(member);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }
  return components
    .map((members) => ({ circle: shortestCircle(members[0], new Set(members), next), members }))
    .sort((a, b) => a.members.join().localeCompare(b.members.join()));
}

/** Breadth-first search from `start` back to itself, staying inside its component. */
function shortestCircle(start: string, component: ReadonlySet<string>, next: ReadonlyMap<string, string[]>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head];
    for (const child of next.get(node) ?? []) {
      if (!component.has(child)) continue;
      if (child === start) {
        const path = [start];
        for (let at = node; at !== start; at = previous.get(at)!) path.push(at);
        path.push(start);
        return [start, ...path.slice(1, -1).reverse(), start];
      }
      if (!previous.has(child)) {
        previous.set(child, node);
        queue.push(child);
      }
    }
  }
  return [start, start];
}
