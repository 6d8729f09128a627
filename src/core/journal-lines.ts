/** The JSON object on each line of a journal's `text`; blank, torn (a crash mid-append) or foreign lines are skipped. */
export function journalRecords(text: string): Record<string, unknown>[] {
  const records: Record<string, unknown>[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    try {
      const value: unknown = JSON.parse(line);
      if (typeof value === 'object' && value !== null && !Array.isArray(value))
        records.push(value as Record<string, unknown>);
    } catch {
      // A torn line from a crash mid-append: skip it.
    }
  }
  return records;
}
