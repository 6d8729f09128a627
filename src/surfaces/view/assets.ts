import { readFile } from 'node:fs/promises';
import { UsageError } from '../../core/errors.js';

/** The page's script and style sheet, bundled at build time (`scripts/build.mjs`). */
export interface PageAssets {
  readonly js: string;
  readonly css: string;
}

/**
 * Their JSON text: a string, which esbuild writes where it is used (an object define would go to
 * the chunk every entry loads, `maker --help` included).
 */
declare const MAKER_VIEW_ASSETS: string | undefined;

let loaded: Promise<PageAssets> | undefined;

/**
 * The page's code. The bundles carry it inline (no file beside them, no network); running from
 * the sources (tests), it is read from `dist/`, where `npm run build` writes it.
 */
export function pageAssets(): Promise<PageAssets> {
  if (typeof MAKER_VIEW_ASSETS !== 'undefined')
    return Promise.resolve(JSON.parse(MAKER_VIEW_ASSETS) as PageAssets);
  loaded ??= (async () => {
    const dist = new URL('../../../dist/', import.meta.url);
    try {
      const [js, css] = await Promise.all([
        readFile(new URL('view-page.js', dist), 'utf8'),
        readFile(new URL('view-page.css', dist), 'utf8'),
      ]);
      return { js, css };
    } catch {
      loaded = undefined;
      throw new UsageError('The view page is not built: run npm run build.');
    }
  })();
  return loaded;
}
