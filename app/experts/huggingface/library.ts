/**
 * The `@huggingface/inference` client library, loaded at the first Hugging Face call: with the
 * task tables it brings, it takes about 20 MB of the process, and most runs call no expert on
 * Hugging Face. Its logger is quieted as it loads (see `quiet`).
 */
type Library = typeof import('@huggingface/inference');

let loading: Promise<Library> | undefined;
let loaded: Library | undefined;

/** The library, loaded the first time it is asked for. */
export function loadHfLibrary(): Promise<Library> {
  loading ??= import('@huggingface/inference').then((library) => {
    quiet(library);
    loaded = library;
    return library;
  });
  return loading;
}

/**
 * The library when it has been loaded, else undefined: an error can only be one of its classes
 * once it has been loaded.
 */
export function loadedHfLibrary(): Library | undefined {
  return loaded;
}

/**
 * The client writes routine notes ("Auto selected provider: ...") to the console on every call,
 * which would break into the CLI's live display. Keep its warnings and errors, drop the rest.
 * The client's logger is process-wide, so this is done once, as it loads.
 */
function quiet(library: Library): void {
  const drop = () => undefined;
  library.setLogger({
    debug: drop,
    info: drop,
    log: drop,
    warn: (message, ...args) => console.warn(message, ...args),
    error: (message, ...args) => console.error(message, ...args),
  });
}
