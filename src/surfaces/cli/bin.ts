import { answerLight } from './help-answer.js';

// Help pages and the version are answered without loading the CLI (commander, the definitions).
if (!(await answerLight(process.argv.slice(2)))) {
  const { runFromProcess } = await import('./main.js');
  await runFromProcess();
}
