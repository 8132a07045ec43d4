/**
 * A download's bytes as a file of the test's own: the run's Chromium is shared and reached over
 * a connection (global-setup.ts), where playwright gives no path of its own, only a copy.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Download } from 'playwright-core';

/** Saves `download` into a new temporary folder and returns the file's path. */
export async function savedFile(download: Download): Promise<string> {
  const file = path.join(
    mkdtempSync(path.join(tmpdir(), 'society-download-')),
    download.suggestedFilename(),
  );
  await download.saveAs(file);
  return file;
}
