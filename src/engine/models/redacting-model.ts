import type { OutputRedactor } from '../../core/credential-redaction.js';
import type { GenerateRequest, GenerateResult, LanguageModel } from '../../ports/language-model.js';

/**
 * A model whose every prompt (and system instruction) passes the redactor's prompt rules first:
 * the person's secrets and MAKER's keys by value, in every encoding, and the credential formats the
 * repository view already hides. A second line behind the redaction of check output where it
 * enters MAKER (`runCheck`): whatever path a later change opens, no secret value reaches a model.
 */
export class RedactingModel implements LanguageModel {
  readonly id: string;

  constructor(
    private readonly inner: LanguageModel,
    private readonly redactor: OutputRedactor,
  ) {
    this.id = inner.id;
  }

  generate(request: GenerateRequest): Promise<GenerateResult> {
    return this.inner.generate({
      ...request,
      prompt: this.redactor.prompt(request.prompt),
      ...(request.system === undefined ? {} : { system: this.redactor.prompt(request.system) }),
    });
  }
}
