import type { PageAssets } from './assets.js';
import type { Boot } from './protocol.js';

/** JSON that is safe inside a `<script>` element: no `</script>`, no `<!--`, no line separators. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Text safe inside HTML (element content or a quoted attribute). */
export function htmlText(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/**
 * The page: one HTML document with the code, the styles and the boot data inline. `nonce` marks
 * the inline script and style for the live server's Content-Security-Policy; a report (no nonce)
 * carries its own policy, which forbids every network request.
 */
export function pageHtml(
  boot: Boot,
  assets: PageAssets,
  options: { title: string; nonce?: string },
): string {
  const nonce = options.nonce === undefined ? '' : ` nonce="${options.nonce}"`;
  const policy =
    options.nonce === undefined
      ? `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">`
      : '';
  // `</script` cannot occur in the bundle's code unless inside a string; escape it there too.
  const js = assets.js.replace(/<\/(script)/gi, '<\\/$1');
  const css = assets.css.replace(/<\/(style)/gi, '<\\/$1');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
${policy}
<title>${htmlText(options.title)}</title>
<style${nonce}>${css}</style>
</head>
<body>
<div id="app"><p class="boot">Loading the MAKER view…</p></div>
<script type="application/json" id="maker-boot">${scriptJson(boot)}</script>
<script${nonce}>${js}</script>
</body>
</html>
`;
}
