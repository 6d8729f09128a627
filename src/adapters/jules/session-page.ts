/** The page where a person follows Jules session `id` (the `url` Jules gives each session). */
export function julesSessionUrl(id: string): string {
  return `https://jules.google.com/session/${encodeURIComponent(id)}`;
}
