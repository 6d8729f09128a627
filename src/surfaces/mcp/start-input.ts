import type { z } from 'zod';
import type { startInput } from './tool-inputs.js';

/** `maker_start`'s arguments as the tool's schema checked them (its `view` flag is the server's). */
export type StartInput = Omit<z.infer<typeof startInput>, 'view'>;
