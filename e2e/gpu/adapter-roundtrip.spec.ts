/**
 * An adapter saved as PEFT files and loaded back gives identical logits, in headless Chromium
 * (src/gpu-tests/checks/adapter-roundtrip.ts): one AdamW step on the GPU, the adapter read back, written as
 * adapter_model.safetensors + adapter_config.json, read again and loaded into a fresh engine, whose logits equal the
 * training engine's bit for bit; F16 and BF16 files are reported beside it with their logit difference.
 */
import { describeChecks } from './harness.ts';

describeChecks('adapter saved as PEFT files and loaded into a fresh engine gives identical logits', ['adapter-roundtrip'], { timeoutMs: 480_000 });
