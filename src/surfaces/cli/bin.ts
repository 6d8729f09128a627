import { runFromProcess } from './main.js';

await runFromProcess();
