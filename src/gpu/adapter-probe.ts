/**
 * What kind of WebGPU adapter this browser gives: its name and whether it is a software fallback (SwiftShader, or
 * an adapter the browser marks `isFallbackAdapter`), which runs about a thousand times slower than a GPU. Asks for an
 * adapter only (no device), so it costs nothing the engine needs; null where WebGPU is missing.
 */
export interface AdapterSummary {
  /** "google / swiftshader", "nvidia / ampere"… as the adapter says (may be empty strings). */
  name: string;
  software: boolean;
}

export function isSoftwareAdapter(info: { vendor?: string; architecture?: string; description?: string; isFallbackAdapter?: boolean }): boolean {
  if (info.isFallbackAdapter === true) return true;
  return /swiftshader|llvmpipe|lavapipe|software|microsoft basic render/i.test(`${info.vendor ?? ''} ${info.architecture ?? ''} ${info.description ?? ''}`);
}

export async function probeAdapter(): Promise<AdapterSummary | null> {
  if (typeof navigator === 'undefined' || !('gpu' in navigator)) return null;
  const gpu = navigator.gpu;
  try {
    const adapter = await gpu.requestAdapter();
    if (!adapter) return null;
    const info = adapter.info;
    const name = [info.vendor, info.architecture || info.description].filter((x) => x).join(' / ');
    return {
      name: name || 'unnamed adapter',
      // Older browsers lack info.isFallbackAdapter (undefined at run time): the name decides then.
      software: isSoftwareAdapter({ vendor: info.vendor, architecture: info.architecture, description: info.description, isFallbackAdapter: info.isFallbackAdapter }),
    };
  } catch {
    return null;
  }
}
