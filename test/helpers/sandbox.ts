/**
 * A shell command, run inside an install's sandbox, that GETs `url` through MAKER's registry proxy
 * (`$HTTP_PROXY`, the only way out) with Node.js: it exits 0 when the server answered (whatever
 * its status), 1 when the proxy refused (its own answer) or nothing answered. A plain
 * `http.get(url)` there reaches nothing: the sandbox has no network.
 */
export function proxiedGet(url: string): string {
  const script = `const u = new URL(process.env.HTTP_PROXY); require('http').get({ host: u.hostname, port: u.port, path: '${url}' }, (r) => { r.resume(); r.on('end', () => process.exit(r.headers['x-maker-proxy'] === 'refused' ? 1 : 0)); }).on('error', (e) => { console.error(e.message); process.exit(1); })`;
  return `node -e "${script}"`;
}
