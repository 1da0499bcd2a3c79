// The package's public surface (src/index.ts) as a program that imports
// 'drum' sees it: every type that an exported function, class or type names
// in its signature is exported too, so a caller can name what it passes and
// gets back (a variable of a check's result, a reject handler, a report's
// part) without reaching into dist/src/... paths that may change. Private
// class members are not part of the surface and are not walked.

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import ts from 'typescript';

const SRC = resolve(import.meta.dirname, '..', '..', 'src');

/** Names of the types that the public exports' declarations reference but src/index.ts does not export. */
function unexportedTypes(): string[] {
  const program = ts.createProgram([join(SRC, 'index.ts')], { module: ts.ModuleKind.NodeNext, target: ts.ScriptTarget.ES2022, strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  const index = checker.getSymbolAtLocation(program.getSourceFile(join(SRC, 'index.ts'))!)!;
  const resolveAlias = (s: ts.Symbol): ts.Symbol => ((s.flags & ts.SymbolFlags.Alias) !== 0 ? checker.getAliasedSymbol(s) : s);
  const exported = new Set(checker.getExportsOfModule(index).map(resolveAlias));
  const missing = new Set<string>();
  const seen = new Set<ts.Symbol>();
  const visit = (sym: ts.Symbol): void => {
    if (seen.has(sym)) return;
    seen.add(sym);
    for (const d of sym.declarations ?? []) walk(d);
  };
  const walk = (node: ts.Node): void => {
    if (ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.PrivateKeyword)) return;
    if (ts.isTypeReferenceNode(node) || ts.isExpressionWithTypeArguments(node)) {
      const at = ts.isTypeReferenceNode(node) ? node.typeName : node.expression;
      const s = checker.getSymbolAtLocation(at);
      const target = s === undefined ? undefined : resolveAlias(s);
      const file = target?.declarations?.[0]?.getSourceFile().fileName;
      if (target !== undefined && file !== undefined && file.startsWith(SRC) && (target.flags & ts.SymbolFlags.TypeParameter) === 0) {
        if (!exported.has(target)) missing.add(`${target.name} (${file.slice(SRC.length + 1)})`);
        visit(target);
      }
    }
    // A function's or method's body is not its signature.
    if (ts.isBlock(node)) return;
    ts.forEachChild(node, walk);
  };
  for (const s of exported) visit(s);
  return [...missing].sort();
}

describe('the public types', () => {
  it('export every type their signatures name, so a caller never imports from dist/src', () => {
    assert.deepEqual(unexportedTypes(), []);
  });
});
