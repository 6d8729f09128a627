import { execFile } from 'node:child_process';

/** One Python check or test run, in its own product tree. */
export interface PythonCase {
  /** The product's directory: the run's working directory, first on its import path, and home. */
  readonly dir: string;
  /**
   * What runs, as its command would: `python3 -m unittest <file>` (`unittest`), `python3 -m
   * unittest discover -s <dir> -p <pattern>` (`discover`), or `python3 -c <code>` (`code`).
   */
  readonly run:
    | { readonly kind: 'unittest'; readonly file: string }
    | { readonly kind: 'discover'; readonly start: string; readonly pattern: string }
    | { readonly kind: 'code'; readonly code: string };
}

/** How one case ended: its command's exit status would be 0 (`passed`), and unittest's counts. */
export interface PythonResult {
  readonly passed: boolean;
  readonly tests: number;
  readonly failed: number;
  /** The whole batch hit its deadline (then no case is known to have passed). */
  readonly timedOut: boolean;
  readonly tail: string;
}

const MARK = '@@maker-python-batch@@';

/**
 * Each case in turn in ONE interpreter: before it, every module a previous case loaded is
 * forgotten (so each case imports its own tree's modules afresh, as a new interpreter would),
 * the working directory and home are its tree's and its tree is first on the import path (as
 * `python3 -m …` and `-c` put the working directory); then unittest loads and runs its tests as
 * `python3 -m unittest` does, or its code runs as `-c` runs it. An exception escaping (an import
 * that fails, `SystemExit` with a non-zero status) fails the case, as it fails the command.
 */
const DRIVER = `
import io, json, os, sys, unittest

cases = json.loads(sys.stdin.read())
base_path = list(sys.path[1:])
base_modules = set(sys.modules)
roots = tuple({sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix})

def installed(module):
    # The standard library's and installed packages' modules stay; a tree's are forgotten.
    name = getattr(module, '__name__', '')
    if name in sys.builtin_module_names:
        return True
    file = getattr(module, '__file__', None)
    return isinstance(file, str) and os.path.abspath(file).startswith(roots)

results = []
for case in cases:
    for name in [n for n in sys.modules if n not in base_modules and not installed(sys.modules[n])]:
        del sys.modules[name]
    os.chdir(case['dir'])
    os.environ['HOME'] = case['dir']
    sys.path[:] = [case['dir'], *base_path]
    stream = io.StringIO()
    run = case['run']
    passed, tests, failed = False, 0, 0
    try:
        if run['kind'] == 'code':
            sys.argv = ['-c']
            try:
                exec(compile(run['code'], '<string>', 'exec'), {'__name__': '__main__'})
                passed = True
            except SystemExit as e:
                passed = e.code is None or e.code == 0
        else:
            loader = unittest.TestLoader()
            sys.argv = ['python3 -m unittest', *(
                ['discover', '-s', run['start'], '-p', run['pattern']]
                if run['kind'] == 'discover'
                else [run['file']]
            )]
            if run['kind'] == 'discover':
                suite = loader.discover(run['start'], pattern=run['pattern'])
            else:
                name = os.path.normpath(run['file'])[:-3].replace(os.sep, '.')
                suite = loader.loadTestsFromNames([name])
            result = unittest.TextTestRunner(stream=stream, verbosity=1).run(suite)
            tests = result.testsRun
            failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
            passed = result.wasSuccessful()
    except BaseException as e:
        stream.write(repr(e))
        passed = False
    results.append({'passed': passed, 'tests': tests, 'failed': failed, 'tail': stream.getvalue()[-1500:]})
sys.stdout.flush()
print('\\n' + '${MARK}' + json.dumps(results))
`;

/**
 * Runs many Python checks and test runs in one interpreter ({@link DRIVER}) instead of one each:
 * `env` is every case's environment (its home is its tree). Every case's result, in order; the
 * batch is killed at `deadlineMs` (then all are `timedOut`).
 */
export function pythonBatch(
  cases: readonly PythonCase[],
  env: Record<string, string>,
  deadlineMs = 30_000 * Math.max(1, cases.length),
): Promise<PythonResult[]> {
  return new Promise((done) => {
    const child = execFile(
      'python3',
      ['-c', DRIVER],
      { timeout: deadlineMs, killSignal: 'SIGKILL', maxBuffer: 8 * 1024 * 1024, env },
      (error, stdout, stderr) => {
        const timedOut = error !== null && (error as { killed?: boolean }).killed === true;
        const at = stdout.lastIndexOf(MARK);
        const parsed =
          timedOut || at < 0
            ? []
            : (JSON.parse(stdout.slice(at + MARK.length)) as Omit<PythonResult, 'timedOut'>[]);
        done(
          cases.map((_, i) => ({
            passed: parsed[i]?.passed ?? false,
            tests: parsed[i]?.tests ?? 0,
            failed: parsed[i]?.failed ?? 0,
            timedOut,
            tail: parsed[i]?.tail ?? `${stdout}${stderr}`.slice(-1500),
          })),
        );
      },
    );
    child.stdin?.end(JSON.stringify(cases));
  });
}
