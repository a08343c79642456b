/**
 * What an instant looks like in the API (`2026-07-01T14:03:00+02:00`), written here with ICU's own
 * Paris wall clock (`sv-SE` writes ISO-like dates) rather than with the service's formatter, so a
 * test comparing the two catches a wrong offset or a wrong conversion.
 */
export function parisTimeOf(ms: number): string {
  const wallClock = new Date(ms).toLocaleString('sv-SE', { timeZone: 'Europe/Paris' }).replace(' ', 'T');
  const offsetName = new Intl.DateTimeFormat('en-US', { timeZone: 'Europe/Paris', timeZoneName: 'shortOffset' })
    .formatToParts(new Date(ms))
    .find((part) => part.type === 'timeZoneName')?.value;
  // `shortOffset` writes "GMT+1" or "GMT+2" for Paris.
  const hours = /^GMT\+(\d)$/.exec(offsetName ?? '')?.[1];
  if (hours === undefined) throw new Error(`Unexpected Paris offset name ${String(offsetName)}`);
  return `${wallClock}+0${hours}:00`;
}

/** The API's form of the instant a response's time names, for `expect(text).toBe(asParisTime(text))`. */
export const asParisTime = (text: string): string => parisTimeOf(Date.parse(text));
