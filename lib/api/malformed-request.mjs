// The error table's entry (lib/api/errors.ts) for a request Node's HTTP parser refuses before any route runs, kept
// here so that the preload (lib/preload/next-server-preload.mjs), plain JavaScript loaded before Next, answers with
// the same words.

export const MALFORMED_REQUEST = {
  status: 400,
  message: "The request is not valid HTTP/1.1",
  when:
    "The request is not valid HTTP/1.1 (for example an unknown method, `Content-Length` together with " +
    "`Transfer-Encoding`, or two `Content-Length` headers); answered before any route runs, then the connection is " +
    "closed.",
};
