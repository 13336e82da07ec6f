// `node --import ./bin/register-raw.mjs` (or `tsx --import …`): registers the `?raw` import hooks in this thread.
// bin/sqlenv.mjs and the Node worker bootstrap call registerRawImports() themselves after tsx's register().
import { register } from 'node:module';

export function registerRawImports() {
  register('./raw-import-hooks.mjs', import.meta.url);
}

registerRawImports();
