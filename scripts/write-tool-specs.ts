/**
 * `npx tsx scripts/write-tool-specs.ts`: writes python/sqlenv_client/tools.json, the Python client's copy of
 * SQL_TOOLS (src/policies/llm/tools.ts, the one source of the tool block). Run it after changing a tool's name,
 * description or argument; tests/policies/llm/tools-json.test.ts fails until the copy is current.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { toolSpecsJson } from '../src/policies/llm/tools.ts';

const path = fileURLToPath(new URL('../python/sqlenv_client/tools.json', import.meta.url));
writeFileSync(path, toolSpecsJson());
console.log(`wrote ${path}`);
