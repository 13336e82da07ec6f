/**
 * Duplicate keys of a JSON object's top level. `JSON.parse` keeps the last of two equal keys silently, so a
 * safetensors header naming one tensor twice (the second entry hiding the first) would parse as a single tensor;
 * this scan finds the repeat in the raw text. One pass, linear in the text; meant for text `JSON.parse` has already
 * accepted, so it can skip values by bracket depth without validating them.
 */

/** The first key that appears twice at the top level of the JSON object `text` (valid JSON), or null. */
export function firstDuplicateTopLevelKey(text: string): string | null {
  const seen = new Set<string>();
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      const start = i;
      for (i++; text[i] !== '"'; i++) if (text[i] === '\\') i++;
      if (depth === 1 && expectKey) {
        const key = JSON.parse(text.slice(start, i + 1)) as string;
        if (seen.has(key)) return key;
        seen.add(key);
        expectKey = false;
      }
    } else if (c === '{' || c === '[') {
      depth++;
      if (depth === 1) expectKey = true;
    } else if (c === '}' || c === ']') depth--;
    else if (c === ',' && depth === 1) expectKey = true;
  }
  return null;
}
