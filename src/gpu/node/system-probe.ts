/**
 * Whether the machine's own GPU drivers give Dawn an adapter, asked in a child process.
 *
 * Why a child: when Dawn rejects a driver (Debian's lavapipe lacks `shaderUniform*ArrayDynamicIndexing`, say), its
 * native code writes a warning straight to file descriptor 2, with source paths of the machine that built dawn.node
 * (`at InitializeImpl (/home/runner/work/node-webgpu/…/PhysicalDeviceVk.cpp:257)`), and every model command printed
 * it before falling back to SwiftShader. Node cannot redirect a native write, so the provider asks in a child whose
 * stderr it reads: a rejected driver's reasons become part of the "no adapter" error (src/gpu/node/node-gpu.ts)
 * instead of noise on every run, and nothing is hidden when nothing works. Where the probe finds an adapter, or
 * cannot run (the GPU kit's bundle has no `webgpu` package to resolve; a child that hangs), the provider asks
 * in-process as before, warnings and all.
 *
 * Node built-ins only: imported by node-gpu.ts, never by code that the page bundles.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export interface SystemProbe {
  /** Dawn found an adapter on the machine's drivers. */
  found: boolean;
  /** What Dawn said on stderr, one message a line, its source-path lines dropped (see dawnMessages). */
  messages: string[];
}

/**
 * Dawn's stderr as messages: each `Warning: X` / `Error: X` block becomes "X (context)" with its ` - While …` lines as
 * the context and its `    at Function (/path/file.cpp:N)` lines dropped (they name the build machine's files, which
 * say nothing to the user); any other non-empty line is kept as it is, so an unexpected message is never lost.
 */
export function dawnMessages(stderr: string): string[] {
  const messages: { text: string; context: string[] }[] = [];
  let current: { text: string; context: string[] } | null = null;
  for (const raw of stderr.split(/\r?\n/)) {
    const line = raw.trimEnd();
    if (line.trim() === '') continue;
    const head = /^(?:Warning|Error): (.*)$/.exec(line);
    if (head) {
      current = { text: head[1].trim(), context: [] };
      messages.push(current);
    } else if (current && line.startsWith(' - ')) {
      current.context.push(line.slice(3).trim());
    } else if (current && /^\s+at \S/.test(line)) {
      // A source location of dawn.node's build: dropped.
    } else {
      current = null;
      messages.push({ text: line.trim(), context: [] });
    }
  }
  return messages.map((m) => (m.context.length > 0 ? `${m.text} (${m.context.join('; ')})` : m.text));
}

/** The `webgpu` package's entry as a file URL, or null where it cannot be resolved (a bundle without node_modules). */
function webgpuEntry(): string | null {
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve('webgpu')).href;
  } catch {
    return null;
  }
}

/**
 * Asks Dawn in a child process for an adapter on the system's drivers (the child's environment is this process's,
 * without VK_ICD_FILENAMES). Null when the probe could not answer: no `webgpu` to resolve, the child failed to start,
 * crashed without answering, or took longer than `timeoutMs`.
 */
export function probeSystemAdapter(timeoutMs = 60_000): Promise<SystemProbe | null> {
  const entry = webgpuEntry();
  if (entry === null) return Promise.resolve(null);
  const code =
    `const { create } = await import(${JSON.stringify(entry)});` +
    `const adapter = await create([]).requestAdapter({ powerPreference: 'high-performance' });` +
    `process.stdout.write(JSON.stringify({ found: adapter !== null }), () => process.exit(0));`;
  const env = { ...process.env };
  delete env.VK_ICD_FILENAMES;
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const finish = (probe: SystemProbe | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(probe);
    };
    const child = spawn(process.execPath, ['--input-type=module', '-e', code], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(null);
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', () => finish(null));
    child.on('close', () => {
      try {
        const answer = JSON.parse(stdout) as { found?: unknown };
        finish(typeof answer.found === 'boolean' ? { found: answer.found, messages: dawnMessages(stderr) } : null);
      } catch {
        finish(null);
      }
    });
  });
}
