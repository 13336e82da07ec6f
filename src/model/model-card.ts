/**
 * The model card PEFT writes beside an adapter (`README.md`), and the Hub id of the base model when it can be told.
 *
 * The Hub reads the card's YAML front matter: `library_name: peft` makes it show the adapter as a PEFT adapter (with
 * PEFT's loading snippet), and `base_model: <hub id>` links it to its base model (PEFT's own card adds the tag
 * `base_model:adapter:<hub id>` too). `base_model` is written only when the base model's Hub id is known; a local
 * folder whose origin cannot be told gets a card without it rather than a path that means nothing on another machine.
 *
 * Where the base model's label comes from: the page labels a model loaded from the Hub with its repo id
 * (`Qwen/Qwen3-0.6B`) and a picked folder with the folder's name; the CLI labels `--model DIR` with DIR's absolute
 * path, which names the repo when DIR is a Hugging Face cache snapshot (`…/models--Qwen--Qwen3-0.6B/snapshots/<sha>`).
 */
import type { LoraConfig } from './lora.ts';

export const MODEL_CARD_FILE = 'README.md';

/** A Hub repo id, `owner/name`, with the Hub's characters (letters, digits, `-`, `_`, `.`; no `..`, no leading dot). */
const HUB_REPO_ID = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}\/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$/;
/** The Hugging Face cache's folder for a model repo: `models--{owner}--{name}` (a `/` in the id becomes `--`). */
const HF_CACHE_FOLDER = /(?:^|[/\\])models--([A-Za-z0-9][A-Za-z0-9_.-]*?)--([A-Za-z0-9][A-Za-z0-9_.-]*)(?:[/\\]|$)/;

/** The Hub id a base model's label names, or null: a repo id as such, or the repo of a Hugging Face cache path. */
export function hubIdOfModelLabel(label: string): string | null {
  const trimmed = label.trim();
  if (HUB_REPO_ID.test(trimmed) && !trimmed.includes('..')) return trimmed;
  const cached = HF_CACHE_FOLDER.exec(trimmed);
  if (cached) {
    const id = `${cached[1]}/${cached[2]}`;
    if (HUB_REPO_ID.test(id) && !id.includes('..')) return id;
  }
  return null;
}

export interface ModelCardInput {
  /** The base model's label (Hub id, folder name or path), as adapter_config.json's base_model_name_or_path. */
  baseModel: string;
  lora: LoraConfig;
}

/** One line of Markdown text: no line breaks, no characters that could open HTML or close an inline code span. */
function inline(text: string): string {
  return text.replace(/[\r\n]+/g, ' ').replace(/[<>`]/g, '');
}

/** The README.md of a PEFT adapter: YAML front matter the Hub reads, then what it is and how to load it. */
export function peftModelCard({ baseModel, lora }: ModelCardInput): string {
  const hubId = hubIdOfModelLabel(baseModel);
  const frontMatter = [
    '---',
    ...(hubId === null ? [] : [`base_model: ${hubId}`]),
    'library_name: peft',
    'tags:',
    ...(hubId === null ? [] : [`- base_model:adapter:${hubId}`]),
    '- lora',
    '- sqlenv',
    '---',
  ];
  const base = hubId ?? 'path/to/the/base/model';
  return [
    ...frontMatter,
    '',
    '# SQLEnv LoRA adapter',
    '',
    `A LoRA adapter trained with SQLEnv Web to answer questions about SQLite databases with tool calls (describe, sample, query, answer), on ${hubId === null ? `the base model \`${inline(baseModel)}\` (a local copy; its Hub id is not known)` : `[${hubId}](https://huggingface.co/${hubId})`}.`,
    '',
    `LoRA: rank ${lora.rank}, alpha ${lora.alpha}${lora.useRslora ? ' (rsLoRA scaling)' : ''}, on ${lora.targetModules.join(', ')}.`,
    '',
    '## Load it with PEFT',
    '',
    '```python',
    'from peft import PeftModel',
    'from transformers import AutoModelForCausalLM',
    '',
    `base = AutoModelForCausalLM.from_pretrained("${base}")`,
    'model = PeftModel.from_pretrained(base, "path/to/this/folder")',
    '```',
    '',
  ].join('\n');
}
