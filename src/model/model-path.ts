/**
 * Paths inside a model folder named by untrusted files — the shard names of model.safetensors.index.json's
 * weight_map, a file asked of the Hub or of a served folder — checked before they are joined to a folder or a URL.
 * A path must be relative and stay inside its folder on every platform and as a URL: forward-slash segments of
 * letters, digits, '_', '-', '.', ' ' and '+', none empty, none starting with '.' (so no '.', '..' or hidden files),
 * no backslash, colon (URL schemes, drive letters), '%', '?', '#' or control character, at most 255 characters and 8
 * segments. Hugging Face's own names (model-00001-of-00002.safetensors, onnx/model.onnx) all pass.
 */

export class UnsafeModelPathError extends Error {
  override name = 'UnsafeModelPathError';
  constructor(
    readonly file: string,
    readonly field: string,
    readonly path: string,
    reason: string,
  ) {
    super(
      `${file} field "${field}": path ${JSON.stringify(path.slice(0, 120))} ${reason}. ` +
        'Files of a model must be named relative to its folder, like model-00001-of-00002.safetensors.',
    );
  }
}

const SEGMENT = /^[A-Za-z0-9_+ -][A-Za-z0-9._+ -]*$/;
const MAX_LENGTH = 255;
const MAX_SEGMENTS = 8;

/** Where a path came from, for the error: the file that named it and the field (e.g. `weight_map["lm_head.weight"]`). */
export interface PathSource {
  file: string;
  field: string;
}

/** Returns `path` unchanged when it is a safe relative path (ending in `extension` when one is given); else throws. */
export function checkModelFilePath(path: unknown, source: PathSource, extension?: string): string {
  const fail = (reason: string): never => {
    throw new UnsafeModelPathError(source.file, source.field, typeof path === 'string' ? path : String(JSON.stringify(path)), reason);
  };
  if (typeof path !== 'string') return fail('is not a string');
  if (path.length === 0 || path.length > MAX_LENGTH) fail(`must have 1 to ${MAX_LENGTH} characters`);
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused here
  if (/[\u0000-\u001f\u007f]/.test(path)) fail('holds a control character (NUL?)');
  if (path.includes('\\')) fail('holds a backslash');
  if (path.startsWith('/')) fail('is absolute');
  if (/[:%?#]/.test(path)) fail("holds ':', '%', '?' or '#' (a URL, a drive letter or an encoded path)");
  const segments = path.split('/');
  if (segments.length > MAX_SEGMENTS) fail(`has more than ${MAX_SEGMENTS} folder levels`);
  for (const s of segments) {
    if (s === '..' || s === '.') fail(`has a '${s}' segment, which leaves or re-enters the model folder`);
    if (!SEGMENT.test(s)) fail(s === '' ? 'has an empty segment' : `has the segment ${JSON.stringify(s)}, which is not a plain file or folder name`);
  }
  if (extension !== undefined && !path.endsWith(extension)) fail(`does not end in ${extension}`);
  return path;
}
