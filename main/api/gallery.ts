/**
 * What the gallery says of each template beyond the document itself, kept beside the templates
 * in `gallery.json`: a one-line summary in plain words, the paper it follows and the kind of
 * society it is, and the few the start page offers first. Documents stay documents (their
 * description keeps the citation); this file is the gallery's own.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { TemplateKind, TemplatePaper } from '../../app/api/templates-contract.ts';

/** The gallery's file in the templates folder. */
export const GALLERY_FILE = 'gallery.json';

/** A summary is one line on a card: longer ones are cut by the card. */
export const SUMMARY_MAX = 120;

export const GallerySchema = z.object({
  /** Base names (`nlsom-vqa`) of the templates the start page offers, in order. */
  featured: z.array(z.string()),
  templates: z.record(
    z.string(),
    z.object({
      paper: TemplatePaper,
      kind: TemplateKind,
      summary: z.string().min(1).max(SUMMARY_MAX),
    }),
  ),
});
export type Gallery = z.infer<typeof GallerySchema>;

/** The folder's gallery metadata; none (an empty shelf) when the folder has no such file. */
export async function readGallery(templatesDir: string): Promise<Gallery> {
  let text: string;
  try {
    text = await readFile(path.join(templatesDir, GALLERY_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { featured: [], templates: {} };
    throw error;
  }
  const parsed = GallerySchema.safeParse(JSON.parse(text));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${GALLERY_FILE}: ${issue?.path.join('.')}: ${issue?.message}`);
  }
  return parsed.data;
}
