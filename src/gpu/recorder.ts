/**
 * A `Recorder` collects the dispatches (and buffer copies) of one step — a decode token, a prefill, a kernel test —
 * and submits them in ONE command buffer with one compute pass per run of dispatches. WebGPU orders dispatches in a
 * pass and makes each one's storage writes visible to the next, so a step reads top to bottom like the math.
 *
 * Uniforms: each dispatch's packed uniform struct gets a 256-byte-aligned slot in one uniform buffer that the
 * recorder owns (grown when a step needs more; written with one `writeBuffer` per submit). The recorder also owns
 * a 16-byte `dummy` storage buffer bound where a kernel's optional input is absent (no bias, no LoRA).
 * Ownership: the recorder creates both and destroys both in `destroy()`.
 *
 * `dispatchCount` counts dispatches submitted so far (the "dispatches per decoded token" figure).
 */
import type { GpuContext } from './device.ts';
import { GpuShapeError } from './errors.ts';
import { BufferUsage } from './flags.ts';
import type { Kernel } from './kernel.ts';

/** A buffer or a byte range of one, as bound to a kernel. */
export type BufferArg = GPUBuffer | { buffer: GPUBuffer; offset?: number; size?: number };

interface DispatchCommand {
  kind: 'dispatch';
  kernel: Kernel;
  uniforms: ArrayBuffer;
  args: Readonly<Record<string, BufferArg>>;
  workgroups: readonly [number, number, number];
}

interface CopyCommand {
  kind: 'copy';
  src: GPUBuffer;
  srcOffset: number;
  dst: GPUBuffer;
  dstOffset: number;
  size: number;
}

type Command = DispatchCommand | CopyCommand;

const UNIFORM_ALIGN = 256;

export class Recorder {
  readonly ctx: GpuContext;
  readonly label: string;
  dispatchCount = 0;
  private commands: Command[] = [];
  private uniformBuffer: GPUBuffer | null = null;
  private dummyBuffer: GPUBuffer | null = null;
  private device: GPUDevice | null = null;

  constructor(ctx: GpuContext, label = 'recorder') {
    this.ctx = ctx;
    this.label = label;
  }

  /** A tiny storage buffer for optional bindings that are switched off by a uniform flag. */
  get dummy(): GPUBuffer {
    this.syncDevice();
    this.dummyBuffer ??= this.ctx.device.createBuffer({ label: `${this.label}.dummy`, size: 16, usage: BufferUsage.STORAGE });
    return this.dummyBuffer;
  }

  /** Records one dispatch. `args` maps every non-uniform binding name of the kernel to a buffer. */
  dispatch(kernel: Kernel, uniforms: ArrayBuffer, args: Readonly<Record<string, BufferArg>>, workgroups: readonly number[]): void {
    const max = this.ctx.limits.maxComputeWorkgroupsPerDimension;
    const wg: [number, number, number] = [workgroups[0] ?? 1, workgroups[1] ?? 1, workgroups[2] ?? 1];
    for (const n of wg) {
      if (!Number.isInteger(n) || n < 0 || n > max) throw new GpuShapeError(kernel.spec.name, `workgroup count ${wg.join('×')} is outside 0..${max} per dimension`);
    }
    for (const b of kernel.spec.bindings) {
      if (b.kind !== 'uniform' && !(b.name in args)) throw new GpuShapeError(kernel.spec.name, `no buffer given for binding ${b.binding} (${b.name})`);
    }
    this.commands.push({ kind: 'dispatch', kernel, uniforms, args, workgroups: wg });
  }

  /** Records a buffer-to-buffer copy (ends the current compute pass). Sizes in bytes, multiples of 4. */
  copy(src: GPUBuffer, srcOffset: number, dst: GPUBuffer, dstOffset: number, size: number): void {
    this.commands.push({ kind: 'copy', src, srcOffset, dst, dstOffset, size });
  }

  /** Number of commands recorded and not yet submitted. */
  get pending(): number {
    return this.commands.length;
  }

  /** Encodes and submits everything recorded, in order; returns once submitted (not once finished). */
  submit(): void {
    this.ctx.assertReady();
    this.syncDevice();
    const device = this.ctx.device;
    const commands = this.commands;
    this.commands = [];
    if (commands.length === 0) return;

    const offsets: number[] = [];
    let total = 0;
    for (const c of commands) {
      if (c.kind !== 'dispatch') continue;
      offsets.push(total);
      total += Math.ceil(c.uniforms.byteLength / UNIFORM_ALIGN) * UNIFORM_ALIGN;
    }
    if (total > 0) {
      if (!this.uniformBuffer || this.uniformBuffer.size < total) {
        this.uniformBuffer?.destroy();
        this.uniformBuffer = device.createBuffer({
          label: `${this.label}.uniforms`,
          size: Math.max(total, 4096),
          usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST,
        });
      }
      const staging = new Uint8Array(total);
      let i = 0;
      for (const c of commands) if (c.kind === 'dispatch') staging.set(new Uint8Array(c.uniforms), offsets[i++]);
      device.queue.writeBuffer(this.uniformBuffer, 0, staging);
    }

    const encoder = device.createCommandEncoder({ label: this.label });
    let pass: GPUComputePassEncoder | null = null;
    let slot = 0;
    for (const c of commands) {
      if (c.kind === 'copy') {
        pass?.end();
        pass = null;
        encoder.copyBufferToBuffer(c.src, c.srcOffset, c.dst, c.dstOffset, c.size);
        continue;
      }
      pass ??= encoder.beginComputePass({ label: this.label });
      const uniformOffset = offsets[slot++];
      const entries: GPUBindGroupEntry[] = c.kernel.spec.bindings.map((b) => {
        if (b.kind === 'uniform') return { binding: b.binding, resource: { buffer: this.uniformBuffer!, offset: uniformOffset, size: c.uniforms.byteLength } };
        const arg = c.args[b.name];
        return { binding: b.binding, resource: 'buffer' in arg ? arg : { buffer: arg } };
      });
      const bindGroup = device.createBindGroup({ label: c.kernel.spec.name, layout: c.kernel.layout, entries });
      pass.setPipeline(c.kernel.pipeline);
      pass.setBindGroup(0, bindGroup);
      pass.dispatchWorkgroups(c.workgroups[0], c.workgroups[1], c.workgroups[2]);
      this.dispatchCount++;
    }
    pass?.end();
    device.queue.submit([encoder.finish()]);
  }

  /** Submits what is pending and waits until the GPU has finished all submitted work. */
  async finish(): Promise<void> {
    this.submit();
    await this.ctx.device.queue.onSubmittedWorkDone();
  }

  /** Destroys the buffers this recorder created. */
  destroy(): void {
    this.uniformBuffer?.destroy();
    this.dummyBuffer?.destroy();
    this.uniformBuffer = null;
    this.dummyBuffer = null;
    this.commands = [];
  }

  /** After a device loss and recovery, the old buffers are gone with the old device: start afresh. */
  private syncDevice(): void {
    if (this.device === this.ctx.device) return;
    this.device = this.ctx.device;
    this.uniformBuffer = null;
    this.dummyBuffer = null;
  }
}
