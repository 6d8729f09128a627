import type { HelpPages } from './help-pages.js';

/** Their JSON text (a string define stays in this module's chunk; an object one would not). */
declare const MAKER_HELP_PAGES: string | undefined;

/**
 * Every command's help page, rendered by the build from the command definitions (scripts/build.mjs);
 * undefined when the sources run unbundled (tests), where commander answers instead. A module of its
 * own, loaded only when the words ask for help, so other commands do not parse it.
 */
export const HELP_PAGES: HelpPages | undefined =
  typeof MAKER_HELP_PAGES === 'undefined' ? undefined : (JSON.parse(MAKER_HELP_PAGES) as HelpPages);
