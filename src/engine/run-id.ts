/** A new run's id: the day and a random suffix (`r20250101-ab1c2`). */
export function newRunId(now: Date): string {
  const stamp = now.toISOString().slice(0, 10).replace(/-/g, '');
  return `r${stamp}-${Math.random().toString(36).slice(2, 7)}`;
}
