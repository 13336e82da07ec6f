/**
 * Saves a file through the browser's download (an object URL on a temporary link): text (an export) or any blob (an
 * adapter's safetensors). The URL is revoked a little later, once the browser has started reading it.
 */
import type { ExportFile } from '../../eval/export.ts';

export function downloadBlob(name: string, blob: Blob): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

export function downloadFile(file: ExportFile): void {
  downloadBlob(file.name, new Blob([file.text], { type: `${file.mimeType};charset=utf-8` }));
}
