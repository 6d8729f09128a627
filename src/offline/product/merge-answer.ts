/**
 * The files a model writes to settle a merge conflict shown in `prompt` (its `=== ours: <path> ===`
 * and `=== theirs: <path> ===` sections): both sides' lines, ours first, when it `keepBoth`; else
 * ours alone.
 */
export function mergedFiles(
  prompt: string,
  keepBoth: boolean,
): { path: string; content: string }[] {
  const sections = [
    ...prompt.matchAll(/^=== (ours|theirs): (.+) ===\n([\s\S]*?)(?=\n\n=== |\nWrite each file)/gm),
  ];
  const paths = [...new Set(sections.map((s) => s[2] as string))];
  const files = paths.map((path) => {
    const side = (which: string) =>
      sections.find((s) => s[1] === which && s[2] === path)?.[3] ?? '';
    const ours = side('ours').split('\n');
    const theirs = keepBoth
      ? side('theirs')
          .split('\n')
          .filter((l) => !ours.includes(l))
      : [];
    return { path, content: `${[...ours, ...theirs].join('\n').trimEnd()}\n` };
  });
  return files;
}
