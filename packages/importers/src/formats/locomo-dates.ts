const months = [
  'january',
  'february',
  'march',
  'april',
  'may',
  'june',
  'july',
  'august',
  'september',
  'october',
  'november',
  'december',
];

/**
 * LoCoMo session times (`1:56 pm on 8 May, 2023`) as ISO strings. The dataset gives no time
 * zone, so they are read as UTC.
 */
export function parseLocomoDateTime(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  const match = /^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$/i.exec(text);
  if (!match) return undefined;
  const [, hourText, minuteText, meridiem, dayText, monthName, yearText] = match;
  const month = months.findIndex((name) => name.startsWith(monthName!.toLowerCase().slice(0, 3)));
  if (month === -1) return undefined;
  let hour = Number(hourText) % 12;
  if (meridiem!.toLowerCase() === 'pm') hour += 12;
  const date = new Date(Date.UTC(Number(yearText), month, Number(dayText), hour, Number(minuteText)));
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
