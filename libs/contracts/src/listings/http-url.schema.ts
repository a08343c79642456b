/**
 * The rule every URL of a snapshot follows (its page, its pictures, its virtual tour): an absolute
 * http(s) URL whose host is a domain name.
 */
import { z } from 'zod';

export const HTTP_URL_MESSAGE = 'must be an absolute http(s) URL with a domain name';

/**
 * The rule as zod states it: the WHATWG parser (`URL.parse`) on the trimmed value, then the
 * protocol and the parsed hostname checked. The value it gives is the one it was given, trimmed and
 * without ASCII tabs and newlines.
 */
export const httpUrlByParsing = z.url({
  protocol: /^https?$/,
  hostname: z.regexes.domain,
  error: HTTP_URL_MESSAGE,
});

/**
 * URLs the rule accepts as they are, told by one pattern: lower-case `http://` or `https://`, a
 * lower-case domain name (labels of letters, digits and inner hyphens, at most 253 characters, a
 * top-level label of letters, no `xn--` label, whose punycode the parser would decode and could
 * refuse), no user, no port, then an optional path of URL code points with no `\`, `?` or `#`.
 * The parser keeps such a host as it is (no upper case to fold, no IP address, no punycode), finds
 * no other host in it, and fails on no such path, so the rule accepts every one of them without
 * changing it. Anything else (a query, a port, upper case, spaces) goes to the parser.
 *
 * Why: a snapshot carries many picture URLs (fourteen on average in generated crawls), and parsing
 * each one into a `URL` object was half of snapshot validation's time while recrawling.
 */
const PLAIN_HTTP_URL =
  /^https?:\/\/(?=[a-z0-9.-]{1,253}(?:\/|$))(?!(?:[^/]*\.)?xn--)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}(?:\/[\w\-.~!$&'()*+,;=:@%/]*)?$/;

/** Whether `value` is a URL the rule accepts unchanged without parsing it (see `PLAIN_HTTP_URL`). */
export function isPlainHttpUrl(value: string): boolean {
  return PLAIN_HTTP_URL.test(value);
}

/**
 * The rule, with the common case answered by the pattern above and everything else by
 * `httpUrlByParsing`: the same verdicts, values and messages. Described as a URI in the API's
 * schemas, as `z.url` is.
 */
export const httpUrl = z
  .string({ error: HTTP_URL_MESSAGE })
  .check((payload) => {
    if (isPlainHttpUrl(payload.value)) return;
    const parsed = httpUrlByParsing.safeParse(payload.value);
    if (parsed.success) payload.value = parsed.data;
    else for (const issue of parsed.error.issues) payload.issues.push({ code: 'custom', message: issue.message, input: payload.value, continue: true });
  })
  .meta({ format: 'uri' });
