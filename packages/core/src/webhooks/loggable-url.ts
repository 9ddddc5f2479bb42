/**
 * A webhook URL as it may be written to a log: scheme, host (with port) and path. Receivers put
 * tokens in the query string (and sometimes the fragment), so those never reach a log line; a
 * text that is not a URL is not echoed at all.
 */
export function loggableUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "(not a valid URL)";
  }
  return `${url.protocol}//${url.host}${url.pathname}`;
}

/** `message` with every occurrence of `url` replaced by its loggable form. */
export const withLoggableUrl = (message: string, url: string): string =>
  message.split(url).join(loggableUrl(url));
