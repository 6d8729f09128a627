import { lintSource } from '@secretlint/core';
import { secretLintProfiler } from '@secretlint/profiler';

// secretlint profiles every scan: a `performance.mark` per rule and per file, kept in Node's global
// performance buffer and in the profiler's own lists for the life of the process (about 155 KB a
// node in a 10,000-leaf run). MAKER never reads the profile: the one instance's `mark` does nothing.
// (secretlint 13 can switch its profiler off, but declares Node >= 22; 12.0.0 is the last on 20.)
secretLintProfiler.mark = () => undefined;

/**
 * secretlint's rules, set up once and run on file after file. `lintSource` creates every rule of the
 * config again for each file it scans (a context, a translator and a closure per rule, about 30
 * rules): a third of a scan's CPU, all of it garbage. Here a rule set is made once and kept; each
 * scan gets its own source and its own lists of reports and ignores, and then filters them as
 * `lintSource` does (`@secretlint/core`'s `cleanupMessages`: a report inside an ignored range, such
 * as a `secretlint-disable` comment's, is dropped; so is an allowed message id). A rule set serves
 * one scan at a time (a rule may finish after an `await`), so scans at once take one each, from a
 * pool. `test/core/credential-rules.test.ts` compares its findings with `lintSource`'s.
 */

type Range = readonly [number, number];

/** A secretlint config, as `lintSource` takes it. */
export type CredentialConfig = Parameters<typeof lintSource>[0]['options']['config'];
type Descriptor = CredentialConfig['rules'][number];

/** The parts of secretlint's rule and source types read here. */
interface RuleCreator {
  readonly meta: {
    readonly id: string;
    readonly type: string;
    readonly supportedContentTypes: readonly string[];
  };
  create(context: unknown, options: unknown): unknown;
}
interface RuleDescriptor {
  readonly id: string;
  readonly rule: RuleCreator;
  readonly options?: unknown;
  readonly disabled?: boolean;
  readonly allowMessageIds?: readonly string[];
  readonly severity?: unknown;
  readonly rules?: readonly RuleDescriptor[];
}
interface Source {
  readonly contentType: string;
  rangeToLocation(range: [number, number]): unknown;
}

interface Report {
  readonly ruleId: string;
  readonly messageId: string;
  readonly range: Range;
}

interface Ignore {
  readonly range: Range;
  readonly targetRuleId?: string;
}

interface Rule {
  readonly id: string;
  readonly contentTypes: readonly string[];
  readonly allowMessageIds: readonly string[];
  readonly file?: (source: Source) => void | Promise<void>;
}

type Messages = Record<
  string,
  ((props?: unknown) => string) | Record<string, (props?: unknown) => string>
>;

/** secretlint's translator, English only: a message id and its data become a message. */
function translator(messages: Messages) {
  return (messageId: string, props?: unknown) => {
    const handler = messages[messageId];
    if (handler === undefined) throw new Error(`messages:${messageId} is missing in messages.`);
    const format = typeof handler === 'function' ? handler : handler['en'];
    if (format === undefined)
      throw new Error(`message's key:${messageId}.en should be defined in messages.`);
    const message = typeof props !== 'object' || props === null ? format() : format(props);
    return { message, messageId, data: props };
  };
}

class RuleSet {
  private reports: Report[] = [];
  private ignores: Ignore[] = [];
  private source: Source | undefined;
  private readonly rules: Rule[] = [];

  constructor(config: CredentialConfig) {
    const shared: object = config.sharedOptions ?? {};
    for (const descriptor of config.rules as readonly Descriptor[] as readonly RuleDescriptor[]) {
      if (descriptor.disabled === true) continue;
      if (descriptor.rule.meta.type === 'preset') {
        const presetRules = descriptor.rules ?? [];
        const context = {
          sharedOptions: shared,
          registerRule: (rule: RuleCreator, defaults?: object) => {
            const own = presetRules.find((d) => d.id === rule.meta.id);
            this.register(
              {
                ...(defaults ?? {}),
                ...own,
                id: rule.meta.id,
                rule,
                options: own?.options,
                disabled: own?.disabled,
                allowMessageIds: own?.allowMessageIds,
                severity: own?.severity,
              },
              shared,
            );
          },
        };
        descriptor.rule.create(context, descriptor.options ?? []);
      } else this.register(descriptor, shared);
    }
  }

  /** A rule of the config (`disabled` honoured), or of a preset (as secretlint: registered anyway). */
  private register(descriptor: RuleDescriptor, shared: object): void {
    if (this.rules.some((r) => r.id === descriptor.id))
      throw new Error(`rule.id:${descriptor.id} is already registered.`);
    const ruleId = descriptor.rule.meta.id;
    const location = (range: Range) => this.source?.rangeToLocation([range[0], range[1]]);
    const context = {
      sharedOptions: shared,
      createTranslator: (messages: Messages) => translator(messages),
      report: (d: { message: { messageId: string }; range: Range }) => {
        location(d.range);
        this.reports.push({ ruleId, messageId: d.message.messageId, range: d.range });
      },
      ignore: (d: { range: Range; targetRuleId?: string }) => {
        location(d.range);
        this.ignores.push({
          range: d.range,
          ...(d.targetRuleId === undefined ? {} : { targetRuleId: d.targetRuleId }),
        });
      },
    };
    const handlers = descriptor.rule.create(context, descriptor.options ?? {}) as {
      file?: Rule['file'];
    };
    this.rules.push({
      id: ruleId,
      contentTypes: descriptor.rule.meta.supportedContentTypes,
      allowMessageIds: descriptor.allowMessageIds ?? [],
      ...(handlers.file === undefined ? {} : { file: handlers.file.bind(handlers) }),
    });
  }

  /** What the rules report in `source`, less the ignored and the allowed, as `lintSource`. */
  async lint(source: Source): Promise<Report[]> {
    this.reports = [];
    this.ignores = [];
    this.source = source;
    await Promise.all(
      this.rules.map(async (rule) => {
        const supported =
          source.contentType === 'unknown' ||
          rule.contentTypes.includes('all') ||
          rule.contentTypes.includes(source.contentType);
        if (supported && rule.file !== undefined) await rule.file(source);
      }),
    );
    const allowed = new Set(
      this.rules.flatMap((r) => r.allowMessageIds.map((m) => `${r.id}--${m}`)),
    );
    const inside = (index: number, [start, end]: Range) => start <= index && index <= end;
    return this.reports
      .filter(
        (m) =>
          !this.ignores.some((i) => {
            const ignored = inside(m.range[0], i.range) && inside(m.range[1], i.range);
            if (ignored && i.targetRuleId !== undefined && i.targetRuleId !== '')
              return i.targetRuleId === '*' || i.targetRuleId === m.ruleId;
            return ignored;
          }),
      )
      .filter((m) => !allowed.has(`${m.ruleId}--${m.messageId}`));
  }
}

/** What a scan is given: secretlint's raw source fields. */
export interface CredentialSource {
  readonly filePath: string;
  readonly content: string;
  readonly ext: string;
}

type SourceClass = new (init: {
  content: string;
  filePath: string;
  physicalFilePath: string | undefined;
  ext: string;
  contentType: 'text';
}) => Source;

let sourceClass: Promise<SourceClass> | undefined;

/**
 * secretlint's own source class (its BOM handling, line index and positions, which the rules use):
 * `@secretlint/core` does not export it, so one `lintSource` call with a rule that only looks at
 * its source hands it over.
 */
function secretLintSource(): Promise<SourceClass> {
  sourceClass ??= (async () => {
    let found: SourceClass | undefined;
    const probe = {
      meta: {
        id: 'maker/source-class',
        type: 'scanner',
        recommended: false,
        supportedContentTypes: ['all'],
      },
      messages: {},
      create: () => ({
        file(source: object) {
          found = source.constructor as SourceClass;
        },
      }),
    };
    await lintSource({
      source: { filePath: '/maker-probe.txt', content: '', ext: '.txt', contentType: 'text' },
      options: { config: { rules: [{ id: probe.meta.id, rule: probe as never }] } },
    });
    if (found === undefined) throw new Error('secretlint did not hand its source to a rule.');
    return found;
  })();
  return sourceClass;
}

/** A config's rules, made once; each scan takes an idle copy (or makes one) and gives it back. */
export class CredentialRules {
  private readonly idle: RuleSet[] = [];

  constructor(private readonly config: CredentialConfig) {}

  /** The ranges of `content` the rules find credentials in, as `lintSource` would report them. */
  async scan(raw: CredentialSource): Promise<Range[]> {
    return (await this.findings(raw)).map((f) => f.range);
  }

  /** What {@link scan} finds, each range with the id of the rule that reported it. */
  async findings(
    raw: CredentialSource,
  ): Promise<{ readonly ruleId: string; readonly range: Range }[]> {
    const Source = await secretLintSource();
    const source = new Source({
      content: raw.content,
      filePath: raw.filePath,
      physicalFilePath: raw.filePath,
      ext: raw.ext,
      contentType: 'text',
    });
    const rules = this.idle.pop() ?? new RuleSet(this.config);
    // A rule set whose scan failed may still have a rule at work: it is not used again.
    const reports = await rules.lint(source);
    if (this.idle.length < IDLE_KEPT) this.idle.push(rules);
    return reports.map((r) => ({ ruleId: r.ruleId, range: r.range }));
  }
}

const IDLE_KEPT = 16;
