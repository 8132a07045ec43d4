/**
 * sharp (libvips), loaded at its first use. Its native library maps about 20 MB into the process
 * and takes a noticeable part of a command's start-up; a run with no image in it (most
 * societies) never needs it, so the modules that process images ask for it here instead of
 * importing it.
 */
import type { default as Sharp } from 'sharp';

let loading: Promise<typeof Sharp> | undefined;

/** The `sharp` function, loading the library the first time it is asked for. */
export function loadSharp(): Promise<typeof Sharp> {
  loading ??= import('sharp').then((module) => module.default);
  return loading;
}
