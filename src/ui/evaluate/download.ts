/**
 * Saves text as a file through the browser's download (an object URL on a temporary link). The URL is revoked a
 * little later, once the browser has started reading it.
 */
import type { ExportFile } from '../../eval/export.ts';

export function downloadFile(file: ExportFile): void {
  const url = URL.createObjectURL(new Blob([file.text], { type: `${file.mimeType};charset=utf-8` }));
  const link = document.createElement('a');
  link.href = url;
  link.download = file.name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
