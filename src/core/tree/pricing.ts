/**
 * Rough blended prices (US$ per million tokens, input and output averaged 3:1) for cost estimates.
 * Estimates only: the provider's bill is the truth. Unknown models estimate as null.
 */
const PRICE_PER_MILLION_TOKENS: Readonly<Record<string, number>> = {
  'gemini-2.5-flash': 0.85,
  'gemini-2.5-flash-lite': 0.18,
  'gemini-2.5-pro': 3.44,
};

export function estimateCostUsd(model: string | undefined, tokens: number): number | null {
  if (model === undefined) return 0; // simulated runs cost nothing
  const price = PRICE_PER_MILLION_TOKENS[model];
  return price === undefined ? null : Math.round(((tokens * price) / 1e6) * 1e4) / 1e4;
}
