/**
 * The reader's own time zone, for dates and times shown in the browser. next-intl's
 * default would be the server's (handed down from the request); a time a message was
 * sent reads right only in the reader's zone. On the server render it is the server's,
 * and the elements that show it suppress the hydration warning.
 */
export function browserTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}
