import type { NodeScope } from './plans.js';
import type { Rand } from './render.js';
import { rightTest } from './acceptance-answers.js';
import type { ProductIdea } from './types.js';

/** The last part of a repository path. */
const basename = (path: string) => path.slice(path.lastIndexOf('/') + 1);

/** What the fake's answers to the probe role were: for reports, and to check it behaved as set. */
export type ProbeAnswerKind = 'right' | 'none' | 'constant' | 'out-of-scope' | 'malformed';

/** Where a right probe writes the tests it runs in the sandbox's checkout (thrown away after). */
const PROBE_DIR = '.probe-tests';

/**
 * The realistic fake's answer to the probe role (a program written from a leaf's task and criteria,
 * never from code, that prints what the code does), for a node of `idea` at `scope`. Right with
 * probability p: SIMULATED, it runs the test a right answer of the test role writes for the leaf
 * from its criteria ({@link rightTest}: never the idea's hidden tests, which MAKER must not see)
 * with its import of the leaf's code made lenient, and prints each test's name and pass or fail, at
 * the path of the leaf's own test file (the only file of its own a leaf has to put it in). A leaf
 * with neither (a manifest) gets none. So it tells candidates apart exactly as far as the criteria
 * do: where they are silent on a flaw, right and flawed candidates print alike and pool. Wrong
 * answers repeat identically, so they vote together: half a probe that prints a constant line (it
 * shows nothing of any candidate: MAKER must key none by it), the rest a probe outside the leaf's
 * files or an answer with no command (red flags).
 */
export function probeAnswer(
  idea: ProductIdea,
  scope: NodeScope | undefined,
  rand: Rand,
  p: number,
): { text: string; kind: ProbeAnswerKind } {
  const leaf = scope?.kind === 'leaf' ? idea.leaves[scope.leaf] : undefined;
  const path = leaf?.files[1]?.path;
  const criteria = leaf === undefined ? undefined : rightTest(leaf);
  const python = idea.runtime === 'python';
  if (path === undefined || criteria === undefined)
    return {
      text: JSON.stringify({ probe: null, reason: 'Nothing in these files to call.' }),
      kind: 'none',
    };
  const command = `${python ? 'python3' : 'node'} ${path}`;
  if (rand(0) < p)
    return {
      text: JSON.stringify({
        probe: {
          path,
          content: rightProbe(
            [{ path: basename(criteria.path), content: criteria.content }],
            python,
          ),
          command,
        },
        reason: 'Calls what the criteria name and prints what comes back.',
      }),
      kind: 'right',
    };
  const r = rand(1);
  if (r < 0.5)
    return {
      text: JSON.stringify({
        probe: {
          path,
          content: python ? "print('probe ran')\n" : "console.log('probe ran');\n",
          command,
        },
        reason: 'A smoke probe.',
      }),
      kind: 'constant',
    };
  if (r < 0.8) {
    const outside = python ? 'probes/probe_all.py' : 'probes/all.mjs';
    return {
      text: JSON.stringify({
        probe: { path: outside, content: 'x', command: command.replace(path, outside) },
        reason: 'One probe for the project.',
      }),
      kind: 'out-of-scope',
    };
  }
  return {
    text: JSON.stringify({ probe: { path, content: 'x' }, reason: 'See the file.' }),
    kind: 'malformed',
  };
}

/** A probe that runs `tests` and prints each test's name and outcome (no times, no paths). */
export function rightProbe(
  tests: readonly { readonly path: string; readonly content: string }[],
  python: boolean,
): string {
  const files = tests.map((t) => ({
    path: `${PROBE_DIR}/${t.path}`,
    content: python ? lenientPython(t.content) : lenientJs(t.content),
  }));
  const data = JSON.stringify(files);
  if (python)
    return [
      '# SIMULATED probe of the realistic fake: tests from the criteria, each outcome printed.',
      'import json, os, subprocess, sys',
      `for f in json.loads(${JSON.stringify(data)}):`,
      "    os.makedirs(os.path.dirname(f['path']), exist_ok=True)",
      "    open(f['path'], 'w').write(f['content'])",
      `r = subprocess.run([sys.executable, '-m', 'unittest', 'discover', '-s', '${PROBE_DIR}', '-p', '*.py', '-v'], capture_output=True, text=True, timeout=20)`,
      'for line in (r.stdout + r.stderr).splitlines():',
      "    if line.endswith((' ... ok', ' ... FAIL', ' ... ERROR')) or ' ... skipped' in line:",
      '        print(line)',
      '',
    ].join('\n');
  return [
    '// SIMULATED probe of the realistic fake: tests from the criteria, each outcome printed.',
    "Promise.all([import('node:child_process'), import('node:fs'), import('node:path')]).then(([cp, fs, path]) => {",
    `  const files = ${data};`,
    '  for (const f of files) {',
    '    fs.mkdirSync(path.dirname(f.path), { recursive: true });',
    '    fs.writeFileSync(f.path, f.content);',
    '  }',
    "  const r = cp.spawnSync(process.execPath, ['--test', '--test-reporter=tap', '--test-timeout=5000', ...files.map((f) => f.path)], { encoding: 'utf8', timeout: 20000 });",
    "  for (const line of `${r.stdout}`.split('\\n'))",
    "    if (/^\\s*(not )?ok \\d+ - /.test(line)) console.log(line.trim().replace(/ # .*$/, ''));",
    '});',
    '',
  ].join('\n');
}

/** A JavaScript test whose static imports become lenient: a module not written yet fails its tests alone. */
function lenientJs(content: string): string {
  return content
    .replace(
      /^import \* as (\w+) from ('\.[^']+');$/gm,
      'const $1 = await import($2).catch(() => ({}));',
    )
    .replace(/^import \{([^}]+)\} from ('\.[^']+');$/gm, (_m, names: string, from: string) => {
      const bound = names.replace(/\b(\w+) as (\w+)\b/g, '$1: $2');
      return `const {${bound}} = await import(${from}).catch(() => ({}));`;
    });
}

/** A Python test whose imports of the product become lenient (a missing name is None). */
function lenientPython(content: string): string {
  return content.replace(
    /^from ((?!unittest\b)[\w.]+) import ([\w, ]+)$/gm,
    (line, _m, names: string) => {
      const unset = names
        .split(',')
        .map((n) => `    ${n.trim()} = None`)
        .join('\n');
      return `try:\n    ${line}\nexcept Exception:\n${unset}`;
    },
  );
}
