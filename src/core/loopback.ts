/** Whether a URL names this machine (127.0.0.1, localhost or [::1]); false for text that is not a URL. */
export function isLoopbackUrl(url: string | URL): boolean {
  try {
    return ['127.0.0.1', 'localhost', '[::1]'].includes(new URL(url).hostname);
  } catch {
    return false;
  }
}
