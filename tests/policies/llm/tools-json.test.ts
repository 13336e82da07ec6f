/**
 * The Python client's copy of the tool block (python/sqlenv_client/tools.json) is SQL_TOOLS, and SQL_TOOLS follows
 * the two rules TRL and transformers fix for the Python side: tools in alphabetical order (TRL lists methods with
 * inspect.getmembers) and union types as sorted lists (transformers' get_json_schema).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SQL_TOOLS, TOOL_NAMES, toolSpecsJson } from '../../../src/policies/llm/tools.ts';

const PYTHON_COPY = fileURLToPath(new URL('../../../python/sqlenv_client/tools.json', import.meta.url));

describe('tools.json, the Python copy of SQL_TOOLS', () => {
  it('is current (else run `npx tsx scripts/write-tool-specs.ts`)', () => {
    const copy = readFileSync(PYTHON_COPY, 'utf8');
    expect(copy).toBe(toolSpecsJson());
    expect(JSON.parse(copy)).toEqual(SQL_TOOLS);
  });

  it('lists the tools alphabetically, as TRL discovers SQLEnvTRL’s methods', () => {
    const names = SQL_TOOLS.map((t) => t.function.name);
    expect(names).toEqual(['answer', 'describe', 'query', 'sample']);
    expect(TOOL_NAMES).toEqual(names);
  });

  it('writes every union type as a sorted list of JSON type names, as transformers does', () => {
    for (const tool of SQL_TOOLS) {
      for (const schema of Object.values(tool.function.parameters.properties as Record<string, { type: string | string[] }>)) {
        if (Array.isArray(schema.type)) expect(schema.type).toEqual([...schema.type].sort());
      }
    }
    const answer = SQL_TOOLS.find((t) => t.function.name === 'answer')!;
    expect((answer.function.parameters.properties as Record<string, { type: unknown }>).value.type).toEqual(['array', 'number', 'string']);
  });
});
