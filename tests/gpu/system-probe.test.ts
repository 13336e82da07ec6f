/**
 * Dawn's native warnings about a driver it rejects stay off the terminal (src/gpu/node/system-probe.ts): the
 * message parser on Dawn's own output (copied from a run on Debian's lavapipe, which Dawn rejects), and the provider
 * in a child process, whose stderr must hold no Dawn warning and no build-machine source path.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { dawnMessages } from '../../src/gpu/node/system-probe.ts';

/** What dawn.node 0.6.2 wrote to stderr when asked for an adapter with only lavapipe installed. */
const LAVAPIPE_WARNING = [
  'Warning: Vulkan shaderUniform*ArrayDynamicIndexing required.',
  ' - While initializing adapter (backend=BackendType::Vulkan)',
  '    at InitializeImpl (/home/runner/work/node-webgpu/node-webgpu/third_party/dawn/src/dawn/native/vulkan/PhysicalDeviceVk.cpp:257)',
  '',
].join('\n');

describe('dawnMessages', () => {
  it('keeps the message and its context, drops the build machine\'s source paths', () => {
    expect(dawnMessages(LAVAPIPE_WARNING)).toEqual(['Vulkan shaderUniform*ArrayDynamicIndexing required. (While initializing adapter (backend=BackendType::Vulkan))']);
  });

  it('keeps every block and any line that is not Dawn\'s, so nothing unexpected is lost', () => {
    const text = `${LAVAPIPE_WARNING}Error: vkEnumeratePhysicalDevices failed\r\nsomething else entirely\n    at not-after-a-block (x.cpp:1)\n`;
    expect(dawnMessages(text)).toEqual([
      'Vulkan shaderUniform*ArrayDynamicIndexing required. (While initializing adapter (backend=BackendType::Vulkan))',
      'vkEnumeratePhysicalDevices failed',
      'something else entirely',
      'at not-after-a-block (x.cpp:1)',
    ]);
    expect(dawnMessages('')).toEqual([]);
  });
});

describe('nodeGpu in a fresh process', () => {
  it('finds an adapter without printing Dawn\'s warnings', async () => {
    const provider = fileURLToPath(new URL('../../src/gpu/node/node-gpu.ts', import.meta.url));
    const code = `const { nodeGpu } = await import(${JSON.stringify(provider)}); const g = await nodeGpu(); process.stdout.write(g.driver); process.exit(0);`;
    const env = { ...process.env };
    delete env.VK_ICD_FILENAMES;
    delete env.SQLENV_GPU;
    const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      child.on('error', reject);
      child.on('close', (exit) => resolve({ code: exit, stdout, stderr }));
    });
    expect(run.code, run.stderr).toBe(0);
    expect(['system', 'swiftshader']).toContain(run.stdout);
    expect(run.stderr).not.toMatch(/Warning: |\/home\/runner\//);
  }, 120_000);
});
